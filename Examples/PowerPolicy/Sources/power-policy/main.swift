// power-policy: a typed mobiusd app that follows logind's PrepareForSleep and UPower's OnBattery/Percentage
// through D-Bus sources (power-policy.json) and announces a power mode as a D-Bus signal. See ../../README.md.
import MobiusDaemon

var app = DaemonApp(name: "power-policy", model: PowerModel(), update: powerUpdate)
app.exampleEvent = PowerEvent.prepareForSleep(true).json
MobiusDaemon.main(app: app)
