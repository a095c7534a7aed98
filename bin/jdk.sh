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

# The server's JVM options unless WHARF_JAVA_OPTS replaces them. Wharf keeps no per-message
# state on the heap, so a throughput collector fits. The parallel one, started from a small heap,
# sizes its young generation to the load instead of beginning at a third of the default heap
# (~128 MB on a 24 GB machine, every page of which a fresh server touches): 10,000 parked
# long-polls held in 171-179 MB against 211-236 MB with the serial collector's defaults, with
# throughput the same within this machine's noise (docs/benchmark-log.md, 2026-11-26, night). The
# ceiling on the young generation keeps a loaded server near the serial collector's footprint
# (~330 MB) instead of the 570-760 MB the parallel collector grew to without it.
WHARF_DEFAULT_JAVA_OPTS="-XX:+UseParallelGC -Xms64m -XX:MaxNewSize=128m"
# The JIT's scratch memory is malloc'd: one compile peaked at 31 MB (NMT) while 10,000 long-polls
# arrived, and glibc kept the freed pages. Trimming the C heap every 5 s gives them back: RSS at
# the end of the hold 159-167 MB, against 181-187 MB without (docs/benchmark-log.md, the sixteenth
# session). A product flag from JDK 22 on.
if [ "$(wharf_java_major "$JAVA_HOME/bin/java")" -ge 22 ] 2>/dev/null; then
  WHARF_DEFAULT_JAVA_OPTS="$WHARF_DEFAULT_JAVA_OPTS -XX:TrimNativeHeapInterval=5000"
fi
