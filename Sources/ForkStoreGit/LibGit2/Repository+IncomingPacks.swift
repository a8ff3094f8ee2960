internal import CLibGit2
import ForkStorePack

extension Repository {
    /// Runs `body` (a fetch) with every pack it receives checked as it arrives
    /// (``IncomingPackCheck``), before libgit2's indexer reads it: an object over the limits
    /// fails the fetch before memory is taken for it, whichever transport brought it. A
    /// failure of the check is thrown as what it is: ``TransferFailure/limitExceeded(_:)``,
    /// or ``TransferFailure/corruptData(reason:)`` for data that is not a pack.
    ///
    /// With `arriving`, each pack's bytes are copied there once checked, and its entries told
    /// as they end, for a reader that follows the fetch (``ArrivingPackReader``).
    func checkingIncomingPacks(
        within limits: IncomingLimits, copyingTo arriving: ArrivingPack? = nil, _ body: () throws(TransferFailure) -> Void
    ) throws(TransferFailure) {
        let check: PackCheckState
        let backend: UnsafeMutablePointer<forkstore_checking_backend>
        do {
            check = PackCheckState(try IncomingPackCheck(limits: limits), copyingTo: arriving)
            backend = try installedPackCheck()
        } catch {
            throw .transport(reason: "setting up the check of fetched packs: \(error)")
        }
        backend.pointee.payload = Unmanaged.passUnretained(check).toOpaque()
        backend.pointee.check = { payload, data, size in
            guard let payload else { return -1 }
            let state = Unmanaged<PackCheckState>.fromOpaque(payload).takeUnretainedValue()
            do {
                if let data {
                    let bytes = UnsafeRawBufferPointer(start: data, count: size)
                    try state.check.consume(bytes)
                    state.arriving?.write(bytes)
                } else {
                    try state.check.finish()
                    state.arriving?.complete()
                }
                return 0
            } catch {
                state.failure = error
                git_error_set_str(Int32(GIT_ERROR_INDEXER.rawValue), String(describing: error))
                return -1
            }
        }
        defer {
            backend.pointee.check = nil
            backend.pointee.payload = nil
            withExtendedLifetime(check) {}
        }
        do {
            try body()
        } catch {
            switch check.failure {
            case let exceeded as LimitExceeded: throw .limitExceeded(exceeded)
            case let damaged as PackError: throw .corruptData(reason: damaged.description)
            default: throw error
            }
        }
    }

    /// The checking backend of this handle's object database, added on first use with a
    /// priority above libgit2's own (which write packs unchecked): `git_odb_write_pack` asks
    /// the backends in order of priority.
    private func installedPackCheck() throws(GitError) -> UnsafeMutablePointer<forkstore_checking_backend> {
        if let packCheck { return packCheck }
        var backend: UnsafeMutablePointer<forkstore_checking_backend>?
        try check("forkstore_checking_backend_new") { forkstore_checking_backend_new(&backend, gitDirectory + "objects") }
        guard let backend else { throw GitError(function: "forkstore_checking_backend_new", rawCode: -1, errorClass: 0, message: "no backend") }
        do {
            try check("git_odb_add_backend") {
                backend.withMemoryRebound(to: git_odb_backend.self, capacity: 1) { git_odb_add_backend(odb, $0, 1_000) }
            }
        } catch {
            forkstore_checking_free(UnsafeMutableRawPointer(backend).assumingMemoryBound(to: git_odb_backend.self))
            throw error
        }
        packCheck = backend
        return backend
    }
}

/// One fetch's check and how it failed, shared with the C callback through its payload.
private final class PackCheckState {
    let check: IncomingPackCheck
    let arriving: ArrivingPack?
    var failure: (any Error)?

    init(_ check: IncomingPackCheck, copyingTo arriving: ArrivingPack?) {
        (self.check, self.arriving) = (check, arriving)
        check.entryEnded = arriving.map { arriving in { arriving.entryArrived($0) } }
    }
}
