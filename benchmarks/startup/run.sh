#!/usr/bin/env bash
# Start-up cost of the loom-gmp agent: a Spring Boot web hello-world (time to the first answer of
# GET /) and a trivial main that starts one virtual thread (time to exit, and CPU time), each
# started N times without the agent, with it, and with it but preempt=false; prints the median,
# IQR and min-max of each and the agent's difference. Builds what it needs on first use (the
# agent, the Spring Boot jar: Maven Central), into loom-bridge/target and benchmarks/startup/target.
#
#   benchmarks/startup/run.sh [--runs N] [--only server|trivial] [--agent JAR] [--baseline JAR]
#
# --runs N      starts per configuration (default 10); a server start takes a few seconds
# --only        measure only the web application or only the trivial main
# --agent JAR   the agent jar to measure (default loom-bridge/target/loom-gmp-agent.jar, built if missing)
# --baseline JAR  also measure this build of the agent (e.g. a copy of the jar from before a change)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/.mvn/find-jdk25.sh"

runs=10
only=
baseline=
agent="$root/loom-bridge/target/loom-gmp-agent.jar"
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs server or trivial}; shift 2 ;;
    --agent) agent=${2:?--agent needs a jar}; shift 2 ;;
    --baseline) baseline=${2:?--baseline needs a jar}; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case $only in ''|server|trivial) ;; *) echo "run.sh: --only takes server or trivial" >&2; exit 2 ;; esac

out="$here/target"
app="$here/spring-hello/target/spring-hello.jar"

maven() { # $1: what is built; the rest: ./mvnw arguments. The log is shown only on failure.
  local what=$1 log
  shift
  echo "run.sh: building $what" >&2
  log=$(mktemp)
  if ! (cd "$root" && ./mvnw -B -ntp "$@") >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "run.sh: building $what failed (log above)" >&2
    exit 1
  fi
  rm -f "$log"
}

if [[ ! -f $agent ]]; then
  maven "the agent" -DskipTests -Djcstress.skip=true -pl loom-bridge -am package
fi
if [[ $only != trivial && ! -f $app ]]; then
  maven "the Spring Boot hello-world" -f "$here/spring-hello/pom.xml" -DskipTests package
fi
mkdir -p "$out/classes"
"$JAVA_HOME/bin/javac" -d "$out/classes" "$here/src/TrivialMain.java" "$here/src/StartupBench.java"

args=(--java "$JAVA_HOME/bin/java" --agent "$agent" --runs "$runs" --logs "$out/logs")
[[ -z $baseline ]] || args+=(--baseline "$baseline")
[[ $only == trivial ]] || args+=(--server "$app")
[[ $only == server ]] || args+=(--trivial "$out/classes")
exec "$JAVA_HOME/bin/java" -cp "$out/classes" StartupBench "${args[@]}"
