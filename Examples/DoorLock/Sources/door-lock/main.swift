import MobiusDaemon

// The door lock as a typed Swift app: the same events, models and effects as the plugin app in ../../update.py.
var app = DaemonApp(name: "door-lock", model: DoorLock(), update: doorUpdate)
app.summary = #"A door lock with the code 1234. Events: {"type":"unlock","code":"…"}, {"type":"lock"}."#
app.exampleEvent = ["type": "unlock", "code": "1234"]
MobiusDaemon.main(app: app)
