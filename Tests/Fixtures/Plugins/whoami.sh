#!/bin/sh
# A mobiusd plugin that reports the account it runs as: effect "whoami" answers with an event carrying the uid,
# the gid, the groups and HOME (for the tests of the plugin `user` and `group` settings).
[ -n "$MOBIUSD_PLUGIN" ] || { echo "whoami.sh is a mobiusd plugin; run it from mobiusd" >&2; exit 2; }
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
    case "$line" in
    *'"method":"initialize"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1,"name":"whoami","version":"1","effects":["whoami"]}}\n' "$id" ;;
    *'"method":"effect"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"events":[{"type":"whoami","uid":"%s","gid":"%s","groups":"%s","home":"%s"}]}}\n' \
            "$id" "$(id -u)" "$(id -g)" "$(id -G)" "$HOME" ;;
    *'"method":"shutdown"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    esac
done
