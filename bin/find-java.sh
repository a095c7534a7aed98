# Sourced by bin/ scripts: sets WHARF_JAVA_HOME and WHARF_JAVA to a JDK >= 21
# (JAVA_HOME when it is one, else the newest under /usr/lib/jvm).
here_bin="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bin/jdk.sh
. "$here_bin/jdk.sh"
WHARF_JAVA_HOME="$JAVA_HOME"
WHARF_JAVA="$WHARF_JAVA_HOME/bin/java"
export WHARF_JAVA_HOME WHARF_JAVA

# The shaded jar (the pom may name it wharf-all.jar or wharf-<version>-all.jar); builds it when
# missing or older than the sources. Sets WHARF_JAR.
wharf_jar() {
  local root="$1"
  WHARF_JAR="$(ls -t "$root"/target/wharf-all.jar "$root"/target/wharf-*-all.jar 2>/dev/null | head -1 || true)"
  if [[ -n "$WHARF_JAR" && -n "$(find "$root/src/main" "$root/pom.xml" -newer "$WHARF_JAR" -print -quit 2>/dev/null)" ]]; then
    echo "$WHARF_JAR is older than the sources" >&2
    WHARF_JAR=""
  fi
  if [[ -z "$WHARF_JAR" ]]; then
    echo "building the shaded jar ..." >&2
    (cd "$root" && JAVA_HOME="$WHARF_JAVA_HOME" mvn -q -B -DskipTests package)
    WHARF_JAR="$(ls -t "$root"/target/wharf-all.jar "$root"/target/wharf-*-all.jar 2>/dev/null | head -1 || true)"
    if [[ -z "$WHARF_JAR" ]]; then
      echo "no shaded jar in $root/target after the build" >&2
      exit 1
    fi
  fi
  export WHARF_JAR
}
