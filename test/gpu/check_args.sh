# shellcheck shell=bash
# Sourced by the GPU run scripts first thing: their argument checks, so that a
# bad argument stops the script at once with exit status 2 and a message
# naming it, before any build or GPU step (readlink -f alone turns a missing
# path into a path, which then fails deep inside a step). The caller sets
# USAGE to its usage line.

# usage_error MESSAGE: print MESSAGE and the usage line, exit 2.
usage_error() {
  echo "$(basename "$0"): $1" >&2
  echo "usage: $USAGE" >&2
  exit 2
}

# need_args N "$@": stop unless at least N arguments were given.
need_args() {
  local n=$1; shift
  [ $# -ge "$n" ] || usage_error "expected at least $n argument(s), got $#"
}

# path_arg VAR KIND WHAT PATH: set VAR to PATH made absolute if PATH is a
# readable KIND (file or dir); else stop, naming WHAT and PATH.
path_arg() {
  local var=$1 kind=$2 what=$3 path=$4
  [ -n "$path" ] || usage_error "$what is empty"
  [ -e "$path" ] || usage_error "$what '$path' does not exist"
  if [ "$kind" = dir ]; then [ -d "$path" ]; else [ -f "$path" ]; fi ||
    usage_error "$what '$path' is not a $kind"
  [ -r "$path" ] || usage_error "$what '$path' is not readable"
  printf -v "$var" %s "$(readlink -f "$path")"
}

# file_arg VAR WHAT PATH / dir_arg VAR WHAT PATH: path_arg for each kind.
file_arg() { path_arg "$1" file "$2" "$3"; }
dir_arg() { path_arg "$1" dir "$2" "$3"; }
