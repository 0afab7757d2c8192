# bash completion for e2b-tui: modes, options, and box names from `e2b-tui --list --json`.
# Installed as $(DATADIR)/bash-completion/completions/e2b-tui.

# Prints the names of the boxes, one a line. The program being completed (COMP_WORDS[0])
# is asked, so a build-tree binary lists its own records. jq when present, else sed.
_e2b_tui_boxes() {
    local prog=${1:-e2b-tui} json
    json=$("$prog" --list --json 2>/dev/null) || [ -n "$json" ] || return 0
    if command -v jq >/dev/null 2>&1; then
        printf '%s\n' "$json" | jq -r '.boxes[]?.name // empty' 2>/dev/null
    else
        # The boxes array comes first and holds no nested array; names are plain words.
        printf '%s\n' "$json" | tr -d '\n' |
            sed -n 's/.*"boxes"[[:space:]]*:[[:space:]]*\[\([^]]*\)\].*/\1/p' |
            grep -o '"name"[[:space:]]*:[[:space:]]*"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'
    fi
}

_e2b_tui() {
    local cur prev prog=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    local modes="--list --up --attach --tunnel --ports --forward --get --keepalive --stop --kill --remake --resume --extend --pull --secrets
        --status --prompt --wait --watch --reply --answer --interrupt --network --compare --pick
        --approve --revoke --history
        --snapshot --snapshots --fork --templates --gc-templates --info --version --help"
    local options="--config --domain --api-url --keystore --template --hours --budget --dir
        --keep-failed --public --force --yes --json --pretty --refresh --readonly --mouse --no-color
        --print-keys --as --from --no-prepared --prepare --delete --count --dry-run --prompt-file --new-session --session --timeout --local
        --allow-out --deny-out --no-internet --all --any --until --option --try --models --kill-rest --yes-all --saved"

    case $prev in
    --attach|--tunnel|--ports|--forward|--get|--stop|--kill|--remake|--resume|--extend|--pull|--snapshot|--fork|--status|--prompt|--wait|--watch|--reply|--answer|--interrupt|--network|--compare|--pick|--approve|--revoke|--history)
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$(_e2b_tui_boxes "$prog")" -- "$cur"))
        return 0 ;;
    --secrets)
        COMPREPLY=($(compgen -W "list set remove" -- "$cur")); return 0 ;;
    --keystore)
        COMPREPLY=($(compgen -W "auto secret-service file" -- "$cur")); return 0 ;;
    --config|--prompt-file)
        COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --dir)
        COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    --until)
        COMPREPLY=($(compgen -W "working waiting retrying idle down paused" -- "$cur")); return 0 ;;
    --domain|--api-url|--template|--hours|--budget|--refresh|--up|--as|--from|--delete|--count|--timeout|--allow-out|--deny-out|--option|--try|--models)
        return 0 ;;
    esac
    COMPREPLY=($(compgen -W "$modes $options" -- "$cur"))
}
complete -F _e2b_tui e2b-tui
