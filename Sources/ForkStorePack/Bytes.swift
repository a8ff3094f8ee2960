import Foundation

extension Data {
    /// `withUnsafeBytes` for a body that throws only ``PackError``s (Foundation's is untyped).
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(PackError) -> Result) throws(PackError) -> Result {
        try withUnsafeBytes { raw in Swift.Result { () throws(PackError) in try body(raw) } }.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws only ``PackError``s.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(PackError) -> Result) throws(PackError) -> Result {
        try withUnsafeBytes { raw in Swift.Result { () throws(PackError) in try body(raw) } }.get()
    }
}
