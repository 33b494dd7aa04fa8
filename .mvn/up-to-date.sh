# Sourced (bash) by ./loomgmp: the build tool's up-to-date check for the jars the launcher runs.
# A jar is stale when it is missing, or when a file it is built from is newer than it: a module's
# sources and resources (src/main), its pom, the parent pom, or the build's JVM and wrapper settings.
# A `git pull` or an edit gives the files it touches a new modification time, so either shows.

# loomgmp_stale_reason ROOT JAR MODULE...: prints why JAR must be rebuilt (and returns 0), or
# prints nothing and returns 1 when it is up to date.
loomgmp_stale_reason() {
  local root=$1 jar=$2
  shift 2
  if [[ ! -f "$jar" ]]; then
    echo "${jar#"$root"/} does not exist"
    return 0
  fi
  local inputs=("$root/pom.xml" "$root/.mvn/jvm.config" "$root/.mvn/wrapper") module
  for module in "$@"; do
    inputs+=("$root/$module/pom.xml" "$root/$module/src/main")
  done
  local newer
  # -newer compares modification times; the first newer file is enough to decide.
  newer=$(find "${inputs[@]}" -newer "$jar" -type f -print -quit 2>/dev/null || true)
  if [[ -n "$newer" ]]; then
    echo "${newer#"$root"/} is newer than ${jar#"$root"/}"
    return 0
  fi
  return 1
}
