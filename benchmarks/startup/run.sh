#!/usr/bin/env bash
# Start-up cost of the loom-gmp agent: a Spring Boot web hello-world (time to the first answer of
# GET /) and a trivial main that starts one virtual thread (time to exit, and CPU time), each
# started N times without the agent, with an empty agent (a premain that does nothing: what any
# -javaagent costs), with the agent, and with it but preempt=false; then the same under a JDK 25
# AOT cache (a training run with -XX:AOTCacheOutput first; a training the JVM refuses is reported
# with what it said; for the agent, whose own training JDK 25 fails, a cache trained without it
# but with its module, as ./loomgmp run --aot trains one). Prints the median, IQR and min-max of each and the differences (against no
# agent, and against the empty agent); progress lines go to standard error. Builds what it needs
# on first use (the agent, the Spring Boot jar: Maven Central; the empty agent and the trivial
# main's jar), into loom-bridge/target and benchmarks/startup/target. Takes minutes.
#
#   benchmarks/startup/run.sh [--runs N] [--only server|trivial] [--agent JAR] [--baseline JAR]
#                             [--no-aot] [--publish]
#
# --runs N      starts per configuration (default 10); a server start takes a few seconds
# --only        measure only the web application or only the trivial main
# --agent JAR   the agent jar to measure (default loom-bridge/target/loom-gmp-agent.jar, built if missing)
# --baseline JAR  also measure this build of the agent (e.g. a copy of the jar from before a change)
# --no-aot      leave out the AOT cache configurations (and their training runs)
# --publish     write the results to benchmarks/startup/results/startup.md (tables, machine, JDK,
#               OS, date, commit, command, load average at start and end) and startup.csv (every
#               run), to be committed; without it they go to benchmarks/startup/target/results/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/.mvn/find-jdk25.sh"

runs=10
only=
baseline=
aot=true
publish=false
command="benchmarks/startup/run.sh $*"
agent="$root/loom-bridge/target/loom-gmp-agent.jar"
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs server or trivial}; shift 2 ;;
    --agent) agent=${2:?--agent needs a jar}; shift 2 ;;
    --baseline) baseline=${2:?--baseline needs a jar}; shift 2 ;;
    --no-aot) aot=false; shift ;;
    --publish) publish=true; shift ;;
    -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
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
mkdir -p "$out/classes" "$out/empty-agent"
"$JAVA_HOME/bin/javac" -d "$out/classes" "$here/src/TrivialMain.java" "$here/src/StartupBench.java"
# The trivial main as a jar too: an AOT cache takes classes from jars only.
"$JAVA_HOME/bin/jar" --create --file "$out/trivial.jar" -C "$out/classes" TrivialMain.class
# The empty agent: a premain that does nothing, the reference for what any -javaagent costs.
"$JAVA_HOME/bin/javac" -d "$out/empty-agent" "$here/src/EmptyAgent.java"
printf 'Premain-Class: EmptyAgent\n' >"$out/empty-agent/MANIFEST.MF"
"$JAVA_HOME/bin/jar" --create --file "$out/empty-agent.jar" --manifest "$out/empty-agent/MANIFEST.MF" \
  -C "$out/empty-agent" EmptyAgent.class

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
  commit="$commit (with uncommitted changes)"
fi
results="$out/results"
! $publish || results="$here/results"

args=(--java "$JAVA_HOME/bin/java" --agent "$agent" --empty-agent "$out/empty-agent.jar" --runs "$runs"
  --logs "$out/logs" --results "$results" --commit "$commit" --command "$command")
[[ -z $baseline ]] || args+=(--baseline "$baseline")
! $aot || args+=(--aot "$out/aot")
[[ $only == trivial ]] || args+=(--server "$app")
[[ $only == server ]] || args+=(--trivial "$out/classes" --trivial-jar "$out/trivial.jar")
exec "$JAVA_HOME/bin/java" -cp "$out/classes" StartupBench "${args[@]}"
