#!/bin/sh
# A mobiusd plugin in plain POSIX shell: handles the effect "tick" by answering with a {"type":"ticked"} event.
# It reads one JSON-RPC line at a time and picks out the id with sed; nothing else is needed.
[ -n "$MOBIUSD_PLUGIN" ] || { echo "tick.sh is a mobiusd plugin; run it from mobiusd" >&2; exit 2; }
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
    case "$line" in
    *'"method":"initialize"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1,"name":"tick","version":"1","effects":["tick"]}}\n' "$id" ;;
    *'"method":"effect"'*)
        echo "<7>tick $id" >&2
        printf '{"jsonrpc":"2.0","id":%s,"result":{"events":[{"type":"ticked"}]}}\n' "$id" ;;
    *'"method":"shutdown"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    esac
done
