// The to-do example as its own daemon: `swift run todo-daemon` (`todo-daemon --help` says how to talk to it), then
//   echo '{"type":"add","title":"buy milk"}' | socat - UNIX-CONNECT:$XDG_RUNTIME_DIR/mobiusd/todo.sock
import MobiusDaemon
import TodoApp

MobiusDaemon.main(app: todoDaemonApp())
