# Sourced (POSIX sh) by ./mvnw, ./loomgmp and .ci/run: exports JAVA_HOME and PATH for a JDK 25.
# Order: $JAVA_HOME, then `java` on the PATH, then a JDK 25 under /usr/lib/jvm.
# Stops with a clear message when none is found, so nothing ever builds or runs on an older JDK.

loomgmp_jdk_major() { # $1 = JDK home; prints its java.specification.version, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

loomgmp_is_jdk25() { # $1 = JDK home
  loomgmp_major=$(loomgmp_jdk_major "$1")
  [ -n "$loomgmp_major" ] && [ "$loomgmp_major" -ge 25 ]
}

loomgmp_find_jdk25() {
  if [ -n "${JAVA_HOME-}" ]; then
    if loomgmp_is_jdk25 "$JAVA_HOME"; then return 0; fi
    echo "loom-gmp: JAVA_HOME=$JAVA_HOME is not a JDK 25 (java.specification.version: ${loomgmp_major:-none}); looking further" >&2
  fi
  loomgmp_path_java=$(command -v java 2>/dev/null || true)
  if [ -n "$loomgmp_path_java" ]; then
    loomgmp_home=$(dirname "$(dirname "$(readlink -f "$loomgmp_path_java")")")
    if loomgmp_is_jdk25 "$loomgmp_home"; then JAVA_HOME=$loomgmp_home; return 0; fi
  fi
  loomgmp_restore_f=false
  case $- in *f*) loomgmp_restore_f=true; set +f ;; esac
  for loomgmp_home in /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    if [ -d "$loomgmp_home" ] && loomgmp_is_jdk25 "$loomgmp_home"; then
      JAVA_HOME=$loomgmp_home
      if $loomgmp_restore_f; then set -f; fi
      return 0
    fi
  done
  if $loomgmp_restore_f; then set -f; fi
  echo "loom-gmp: no JDK 25 found. Looked at JAVA_HOME (${JAVA_HOME:-unset}), 'java' on the PATH (${loomgmp_path_java:-none}) and /usr/lib/jvm/*." >&2
  echo "loom-gmp: install a JDK 25 (for example Temurin 25) and set JAVA_HOME to it." >&2
  return 1
}

loomgmp_find_jdk25 || exit 1
export JAVA_HOME
PATH="$JAVA_HOME/bin:$PATH"
export PATH
