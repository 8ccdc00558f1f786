extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        value.isNull
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        try self.unboxBool()
    }

    func decode(_ type: String.Type) throws -> String {
        try self.unboxString()
    }

    func decode(_ type: Double.Type) throws -> Double {
        try self.unboxDouble()
    }

    func decode(_ type: Float.Type) throws -> Float {
        try self.unboxFloat()
    }

    func decode(_ type: Int.Type) throws -> Int {
        try self.unboxInteger(Int.self)
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        try self.unboxInteger(Int8.self)
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        try self.unboxInteger(Int16.self)
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        try self.unboxInteger(Int32.self)
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        try self.unboxInteger(Int64.self)
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        try self.unboxInteger(UInt.self)
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try self.unboxInteger(UInt8.self)
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try self.unboxInteger(UInt16.self)
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try self.unboxInteger(UInt32.self)
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try self.unboxInteger(UInt64.self)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self)
    }
}
