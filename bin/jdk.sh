# Sourced by bin/wharf and bin/test: sets JAVA_HOME to a JDK >= 21 or exits with a clear error.

wharf_java_major() {
  # Prints the feature version of the java binary given ("21", "25", ...), or nothing. A JDK's
  # release file says it without starting a JVM (~0.15 s each, on every launch of Wharf).
  local release
  release="$(dirname "$(dirname "$1")")/release"
  if [ -f "$release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$release" | head -n 1
    return
  fi
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

wharf_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    local v
    v="$(wharf_java_major "$JAVA_HOME/bin/java")"
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then
      return 0
    fi
  fi
  local best="" best_v=0 dir v
  for dir in /usr/lib/jvm/*/ /Library/Java/JavaVirtualMachines/*/Contents/Home/; do
    dir="${dir%/}"
    [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ] || continue
    v="$(wharf_java_major "$dir/bin/java")"
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then
      best="$dir"
      best_v="$v"
    fi
  done
  if [ -z "$best" ]; then
    echo "wharf: no JDK 21 or newer found (JAVA_HOME is '${JAVA_HOME:-unset}', nothing suitable in /usr/lib/jvm)." >&2
    echo "wharf: install one (e.g. Temurin 21 or 25) or set JAVA_HOME to it." >&2
    exit 1
  fi
  export JAVA_HOME="$best"
}

wharf_find_jdk
