/// Elements of an unkeyed container being encoded.
final class ArrayBox {
    var items: [EncodedItem] = []
}
