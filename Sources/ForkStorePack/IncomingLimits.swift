/// The most one fetch may bring, checked from the sizes the data declares before memory is
/// taken for it: a pack entry's header, a delta's result-size header, an object's header.
package struct IncomingLimits: Sendable, Equatable {
    /// The largest object, whole or rebuilt from a delta (and the largest delta).
    package var maximumObjectSize: Int
    /// The most bytes one fetch may bring: counted as received, and again as the sizes of its
    /// objects (each delta counted as the object it makes).
    package var maximumFetchSize: Int
    /// The most objects one fetch may bring: what indexing or walking them costs grows with
    /// their number (libgit2's indexer keeps about 100 bytes an object), whatever their sizes.
    package var maximumObjectCount: Int

    package init(maximumObjectSize: Int, maximumFetchSize: Int, maximumObjectCount: Int = Self.standard.maximumObjectCount) {
        (self.maximumObjectSize, self.maximumFetchSize) = (max(0, maximumObjectSize), max(0, maximumFetchSize))
        self.maximumObjectCount = max(0, maximumObjectCount)
    }

    /// 1 MB objects (a record's default limit), 1 GiB and 100,000 objects a fetch: the
    /// exchange's defaults.
    package static let standard = IncomingLimits(maximumObjectSize: 1_000_000, maximumFetchSize: 1 << 30, maximumObjectCount: 100_000)
}

/// A fetch refused because it would bring more than one of its ``IncomingLimits`` allows.
package struct LimitExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which limit.
    package enum Limit: Sendable, Equatable {
        /// ``IncomingLimits/maximumObjectSize``.
        case objectSize
        /// ``IncomingLimits/maximumFetchSize``.
        case fetchSize
        /// ``IncomingLimits/maximumObjectCount``.
        case objectCount
    }

    package var limit: Limit
    /// The limit's value, in bytes.
    package var maximum: Int
    /// The object's size, for the fetch size what the fetch had reached, for the object count
    /// how many objects the fetch brings (or had reached).
    package var size: Int
    /// What broke it: an object by its id, a pack entry by its number, or the pack.
    package var object: String

    package init(_ limit: Limit, maximum: Int, size: Int, object: String) {
        (self.limit, self.maximum, self.size, self.object) = (limit, maximum, size, object)
    }

    package var description: String {
        switch limit {
        case .objectSize:
            "\(object) is \(size) bytes, over the largest object a fetch may bring (\(maximum) bytes)"
        case .fetchSize:
            "the fetch reached \(size) bytes at \(object), over the most one fetch may bring (\(maximum) bytes)"
        case .objectCount:
            "the fetch brings \(size) objects (\(object)), over the most one fetch may bring (\(maximum) objects)"
        }
    }
}

/// What one fetch has brought so far, against its limits.
package struct IncomingBudget: Sendable {
    package let limits: IncomingLimits
    /// The sizes of the objects admitted so far.
    package private(set) var objectBytes = 0
    /// The bytes received so far.
    package private(set) var receivedBytes = 0
    /// The objects admitted so far.
    package private(set) var objectCount = 0

    package init(_ limits: IncomingLimits) { self.limits = limits }

    /// Admits an object (or a delta) of `size` bytes, before memory is taken for it.
    package mutating func admit(_ object: @autoclosure () -> String, size: Int) throws(LimitExceeded) {
        objectCount += 1
        try expect(objects: objectCount, object())
        guard size <= limits.maximumObjectSize else {
            throw LimitExceeded(.objectSize, maximum: limits.maximumObjectSize, size: size, object: object())
        }
        objectBytes += size
        guard objectBytes <= limits.maximumFetchSize else {
            throw LimitExceeded(.fetchSize, maximum: limits.maximumFetchSize, size: objectBytes, object: object())
        }
    }

    /// Checks that a fetch of `count` objects (as a pack's header announces them, or as many
    /// as were admitted) is within the limit, before any of them is indexed.
    package func expect(objects count: Int, _ place: @autoclosure () -> String) throws(LimitExceeded) {
        guard count <= limits.maximumObjectCount else {
            throw LimitExceeded(.objectCount, maximum: limits.maximumObjectCount, size: count, object: place())
        }
    }

    /// Counts `count` more bytes received.
    package mutating func receive(_ count: Int, at place: @autoclosure () -> String) throws(LimitExceeded) {
        receivedBytes += count
        guard receivedBytes <= limits.maximumFetchSize else {
            throw LimitExceeded(.fetchSize, maximum: limits.maximumFetchSize, size: receivedBytes, object: place())
        }
    }
}
