import Foundation

/// A value as the index stores and compares it. The order is SQLite's: `null` first, then
/// numbers (integers and reals compared by value), then text compared by its UTF-8 bytes (so
/// "B" sorts before "a", and "é" and "e\u{301}" are different values, as record ids are).
public enum IndexValue: Sendable, Hashable, Comparable {
    /// No value: a nil optional, or a NaN. Sorts first.
    case null
    /// A whole number.
    case integer(Int64)
    /// A floating-point number, compared with integers by value.
    case real(Double)
    /// Text, compared by its UTF-8 bytes.
    case text(String)

    public static func == (lhs: IndexValue, rhs: IndexValue) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        // Equal numbers must hash alike whichever case holds them.
        case .integer(let value): hasher.combine(Double(value))
        case .real(let value): hasher.combine(value)
        case .text(let value): hasher.combine(Array(value.utf8))
        }
    }

    public static func < (lhs: IndexValue, rhs: IndexValue) -> Bool { compare(lhs, rhs) < 0 }

    private var rank: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        }
    }

    static func compare(_ lhs: IndexValue, _ rhs: IndexValue) -> Int {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.integer(let l), .integer(let r)): return l == r ? 0 : (l < r ? -1 : 1)
        case (.integer(let l), .real(let r)): return compare(.real(Double(l)), .real(r))
        case (.real(let l), .integer(let r)): return compare(.real(l), .real(Double(r)))
        case (.real(let l), .real(let r)): return l == r ? 0 : (l < r ? -1 : 1)
        case (.text(let l), .text(let r)):
            return l.utf8.elementsEqual(r.utf8) ? 0 : (l.utf8.lexicographicallyPrecedes(r.utf8) ? -1 : 1)
        default: return lhs.rank < rhs.rank ? -1 : 1
        }
    }
}

/// A type whose values an index can hold: strings, integers, doubles, booleans (as 0 and 1),
/// dates (as seconds since 2001, as records store them) and optionals of these (nil as null).
public protocol IndexableValue: Sendable {
    /// The value as the index stores it.
    var indexValue: IndexValue { get }
}

extension String: IndexableValue {
    public var indexValue: IndexValue { .text(self) }
}

extension Int: IndexableValue {
    public var indexValue: IndexValue { .integer(Int64(self)) }
}

extension Int64: IndexableValue {
    public var indexValue: IndexValue { .integer(self) }
}

extension Double: IndexableValue {
    public var indexValue: IndexValue { isNaN ? .null : .real(self) }
}

extension Bool: IndexableValue {
    public var indexValue: IndexValue { .integer(self ? 1 : 0) }
}

extension Date: IndexableValue {
    public var indexValue: IndexValue { timeIntervalSinceReferenceDate.indexValue }
}

extension Optional: IndexableValue where Wrapped: IndexableValue {
    public var indexValue: IndexValue { self?.indexValue ?? .null }
}
