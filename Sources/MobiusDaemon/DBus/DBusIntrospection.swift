/// The introspection XML of an exposed app's object (`org.freedesktop.DBus.Introspectable.Introspect`), and of the
/// paths above it, so that `busctl tree` and `gdbus introspect --recurse` find the object. Every name in it was
/// checked against the D-Bus specification (letters, digits, `_`, `.`), so nothing needs escaping.
enum DBusIntrospection {
    static let appInterface = "org.mobiusd.App1"

    private static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// Peer and Introspectable, which every path has (libdbus answers Peer itself).
    private static let everyPath = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>

        """

    private static let propertiesInterface = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="props" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    /// The object's document: the standard interfaces and `org.mobiusd.App1` with the configured properties.
    static func object(properties: [ExposedProperty]) -> String {
        var text = header + "<node>\n" + everyPath + propertiesInterface
        text += """
              <interface name="\(appInterface)">
                <method name="Send">
                  <arg name="event" type="s" direction="in"/>
                  <arg name="seq" type="t" direction="out"/>
                </method>
                <method name="Get">
                  <arg name="pointer" type="s" direction="in"/>
                  <arg name="json" type="s" direction="out"/>
                </method>
                <property name="Model" type="s" access="read">
                  <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>
                </property>
                <property name="Seq" type="t" access="read"/>
                <property name="Epoch" type="s" access="read">
                  <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
                </property>

            """
        for property in properties {
            text += "    <property name=\"\(property.name)\" type=\"\(property.type.signature)\" access=\"read\"/>\n"
        }
        return text + "  </interface>\n</node>\n"
    }

    /// The document of a path above the object: no interfaces but Peer and Introspectable, one child node.
    static func ancestor(child: String) -> String {
        header + "<node>\n" + everyPath + "  <node name=\"\(child)\"/>\n</node>\n"
    }

    /// The first element below `ancestor` on the way to `path`, when `ancestor` is above `path`.
    static func child(of ancestor: String, toward path: String) -> String? {
        let prefix = ancestor == "/" ? "/" : ancestor + "/"
        guard path != ancestor, path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
    }
}
