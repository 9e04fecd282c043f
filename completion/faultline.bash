# bash completion for faultline, installed as
# PREFIX/share/bash-completion/completions/faultline (make install).
#
# The verbs, each verb's options, the lab kinds, their hosts and their [lab]
# options are asked of the faultline being completed (its --help outputs and
# `faultline help scenario`), so that they cannot drift from it;
# tests/cli/docs.sh checks that they come out right.  Files: *.scn for run
# and check, *.scn and directories for suite, directories for verify,
# cleanup, compare and --out.

# _faultline_verbs PROG: the "  VERB ..." lines of `faultline --help`
_faultline_verbs() {
    "$1" --help 2> /dev/null | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sort -u
}

# _faultline_options PROG VERB: the --options of the verb's usage lines (the
# first paragraph of its --help)
_faultline_options() {
    "$1" "$2" --help 2> /dev/null | sed -n '1,/^$/p' | grep -o -- '--[a-z][a-z-]*' | sort -u
}

# _faultline_lab_options PROG KIND: the options of lab's usage lines, and
# KIND's own [lab] keys ("  --write-cache (iscsi)" in `faultline lab --help`)
_faultline_lab_options() {
    "$1" lab --help 2> /dev/null | awk -v kind="$2" '
        /^usage:/, /^$/ {
            for (i = 1; i <= NF; i++)
                if ($i ~ /^\[--[a-z]/) { o = $i; gsub(/[][]/, "", o); print o }
            next
        }
        $1 ~ /^--[a-z]/ && $2 == "(" kind ")" { print $1 }' | sort -u
}

# _faultline_kinds PROG [KIND]: the lab kinds under "Labs:" in `faultline help
# scenario`; with KIND, that kind's hosts
_faultline_kinds() {
    "$1" help scenario 2> /dev/null | awk -v want="${2:-}" '
        /^Labs:/ { sub(/^Labs:/, ""); on = 1 }
        !on { next }
        /^$/ { exit }
        $1 == "hosts:" { if (want != "" && kind == want) for (i = 2; i <= NF; i++) print $i; next }
        { kind = $1; if (want == "") print kind }'
}

# _faultline_files KIND CUR: *.scn files (KIND scn) or directories (dir)
_faultline_files() {
    compopt -o filenames 2> /dev/null
    if [ "$1" = scn ]; then
        compgen -f -X '!*.scn' -- "$2"
    fi
    compgen -d -- "$2"
}

_faultline() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]} verb=${COMP_WORDS[1]:-} words
    case $prog in "~/"*) prog=$HOME/${prog#"~/"} ;; esac
    command -v "$prog" > /dev/null 2>&1 || return 0
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        words="$(_faultline_verbs "$prog") --help --version"
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return 0
    fi
    case $verb in
    run | check | suite | verify | cleanup | compare | agent | shrink)
        case $prev in
        --out | --client-dir | --dir)
            mapfile -t COMPREPLY < <(_faultline_files dir "$cur")
            return 0
            ;;
        --repeat | --retry-timing | --worse | --run | --cleanup | --budget | --tries) return 0 ;;
        esac
        if [[ $cur == -* ]]; then
            words="$(_faultline_options "$prog" "$verb") --help"
            mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        elif [ "$verb" = run ] || [ "$verb" = check ] || [ "$verb" = suite ]; then
            mapfile -t COMPREPLY < <(_faultline_files scn "$cur")
        elif [ "$verb" != agent ]; then
            mapfile -t COMPREPLY < <(_faultline_files dir "$cur")
        fi
        ;;
    lab)
        local sub=${COMP_WORDS[2]:-} kind=${COMP_WORDS[3]:-}
        if [ "$COMP_CWORD" -eq 2 ]; then
            words=$("$prog" lab --help 2> /dev/null |
                sed -n 's/^.*faultline lab \([a-z|]*\) .*/\1/p' | tr '|' ' ')
        elif [[ $prev == --[a-z]* && $prev != --json && $prev != --help ]]; then
            return 0 # the value of an option
        elif [[ $cur == -* ]]; then
            words="$(_faultline_lab_options "$prog" "$kind") --help"
        elif [ "$COMP_CWORD" -eq 3 ]; then
            words=$(_faultline_kinds "$prog")
        elif [ "$COMP_CWORD" -eq 4 ] && [ "$sub" = restart ]; then
            words=$(_faultline_kinds "$prog" "$kind")
        fi
        mapfile -t COMPREPLY < <(compgen -W "${words:-}" -- "$cur")
        ;;
    help)
        if [ "$COMP_CWORD" -eq 2 ]; then
            words=$("$prog" --help 2> /dev/null | sed -n 's/^  help \([a-z]*\).*/\1/p')
        elif [ "$prev" = --format ]; then
            words=$("$prog" --help 2> /dev/null | sed -n 's/.*--format \([a-z|]*\)\].*/\1/p' | tr '|' ' ')
        elif [ "${COMP_WORDS[2]}" = scenario ] && [ "$COMP_CWORD" -eq 3 ]; then
            words=--format
        fi
        mapfile -t COMPREPLY < <(compgen -W "${words:-}" -- "$cur")
        ;;
    esac
    return 0
}
complete -F _faultline faultline
