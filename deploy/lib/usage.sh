# Sourced first thing by the scripts of deploy/, bench/ and tools/: -h or --help prints the
# script's opening comment (what it does, how to call it) and exits 0, so that asking a script
# what it does never starts it.
case "${1:-}" in
  -h | --help)
    sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
esac
