# Sourced (POSIX sh) by ./mvnw, ./loomgmp and .ci/run: exports JAVA_HOME and PATH for a JDK 25,
# the one JDK loom-gmp supports.
# Order: $JAVA_HOME, then `java` on the PATH, then a JDK 25 under /usr/lib/jvm.
# Stops with a clear message when none is found, so nothing ever builds or runs on an older JDK.

loomgmp_jdk_major() { # $1 = JDK home; prints its feature release (25), or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  # The JDK's release file (JAVA_VERSION="25.0.3") answers without starting a JVM, which would
  # cost every ./loomgmp and ./mvnw command 40 ms or more per JDK looked at; a JDK without one
  # (8 and older have one too, as JAVA_VERSION="1.8.0_x") is asked for its properties.
  if [ -r "$1/release" ]; then
    sed -n 's/^JAVA_VERSION="\(1\.\)\{0,1\}\([0-9]*\).*/\2/p' "$1/release"
  else
    "$1/bin/java" -XshowSettings:properties -version 2>&1 |
      sed -n 's/^ *java\.specification\.version = \(1\.\)\{0,1\}\([0-9]*\).*/\2/p'
  fi
}

# The JDKs loom-gmp supports: the agent rewrites java.lang.VirtualThread as JDK 25 has it, and on
# any other feature release steps aside (or, with strict=true, refuses to start), so the build and
# the scripts take only these.
# The same as the parent pom's loomgmp.supported.jdk, which the agent's manifest and check use
# (LauncherIT fails when the two differ).
loomgmp_supported_jdk=25

loomgmp_is_jdk25() { # $1 = JDK home
  loomgmp_major=$(loomgmp_jdk_major "$1")
  [ -n "$loomgmp_major" ] && [ "$loomgmp_major" -eq "$loomgmp_supported_jdk" ]
}

loomgmp_why_not() { # why the JDK just looked at was not taken
  if [ -z "${loomgmp_major-}" ]; then
    echo "no JDK there (no bin/java and bin/javac)"
  elif [ "$loomgmp_major" -gt "$loomgmp_supported_jdk" ]; then
    echo "JDK $loomgmp_major, newer than the JDK $loomgmp_supported_jdk loom-gmp supports: its agent rewrites JDK $loomgmp_supported_jdk's VirtualThread and does nothing on other JDKs"
  else
    echo "JDK $loomgmp_major; loom-gmp needs JDK $loomgmp_supported_jdk"
  fi
}

loomgmp_find_jdk25() {
  if [ -n "${JAVA_HOME-}" ]; then
    if loomgmp_is_jdk25 "$JAVA_HOME"; then return 0; fi
    echo "loom-gmp: JAVA_HOME=$JAVA_HOME is not taken: $(loomgmp_why_not); looking further" >&2
  fi
  loomgmp_path_java=$(command -v java 2>/dev/null || true)
  if [ -n "$loomgmp_path_java" ]; then
    loomgmp_home=$(dirname "$(dirname "$(readlink -f "$loomgmp_path_java")")")
    if loomgmp_is_jdk25 "$loomgmp_home"; then JAVA_HOME=$loomgmp_home; return 0; fi
    loomgmp_path_java="$loomgmp_path_java: $(loomgmp_why_not)"
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
  echo "loom-gmp: no JDK $loomgmp_supported_jdk found. Looked at JAVA_HOME (${JAVA_HOME:-unset}), 'java' on the PATH (${loomgmp_path_java:-none}) and /usr/lib/jvm/*." >&2
  echo "loom-gmp: loom-gmp supports JDK $loomgmp_supported_jdk only; install one (for example Temurin $loomgmp_supported_jdk) and set JAVA_HOME to it." >&2
  return 1
}

loomgmp_find_jdk25 || exit 1
export JAVA_HOME
PATH="$JAVA_HOME/bin:$PATH"
export PATH
