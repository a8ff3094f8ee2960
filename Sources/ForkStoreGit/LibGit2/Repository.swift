internal import CLibGit2
import Foundation

/// An open libgit2 repository.
///
/// Not `Sendable`: libgit2 allows one thread at a time per repository object, so its owner
/// (a store) serializes every use. Frees its handles when the last reference goes away.
package final class Repository {
    let pointer: OpaquePointer
    /// The object database; replaced by ``forgetRemovedPacks()``.
    var odb: OpaquePointer
    /// The pack indexes seen in `objects/pack`, and when that folder last changed: what
    /// ``forgetRemovedPacks()`` compares with.
    var packsSeen: (names: Set<String>, changed: timespec?) = ([], nil)
    /// What a batch handle writes into and reads first; nil for any other handle.
    let batch: BatchObjects?
    /// The backend that checks every pack a fetch brings, once a fetch has added it to the
    /// object database (which owns it); see Repository+IncomingPacks.swift.
    var packCheck: UnsafeMutablePointer<forkstore_checking_backend>?

    private init(pointer: OpaquePointer, batch: BatchObjects? = nil) throws(GitError) {
        var odb: OpaquePointer?
        do {
            try check("git_repository_odb") { git_repository_odb(&odb, pointer) }
        } catch {
            git_repository_free(pointer)
            throw error
        }
        guard let odb else {
            git_repository_free(pointer)
            throw GitError(function: "git_repository_odb", rawCode: -1, errorClass: 0, message: "no object database")
        }
        self.pointer = pointer
        self.odb = odb
        self.batch = batch
    }

    deinit {
        git_odb_free(odb)
        git_repository_free(pointer)
    }

    /// Creates a bare repository whose HEAD names `initialBranch`, creating folders as needed.
    package static func createBare(at path: String, initialBranch: String) throws(GitError) -> Repository {
        try Libgit2.ensureInitialized()
        var options = git_repository_init_options()
        try check("git_repository_init_options_init") {
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION))
        }
        options.flags = GIT_REPOSITORY_INIT_BARE.rawValue | GIT_REPOSITORY_INIT_MKPATH.rawValue
        var repository: OpaquePointer?
        try check("git_repository_init_ext") {
            initialBranch.withCString { branch in
                options.initial_head = branch
                return git_repository_init_ext(&repository, path, &options)
            }
        }
        return try Repository(opened: repository, by: "git_repository_init_ext")
    }

    /// Opens the bare repository at exactly `path`, without searching parent folders.
    package static func openBare(at path: String) throws(GitError) -> Repository {
        try Libgit2.ensureInitialized()
        var repository: OpaquePointer?
        try check("git_repository_open_bare") { git_repository_open_bare(&repository, path) }
        return try Repository(opened: repository, by: "git_repository_open_bare")
    }

    /// Opens the bare repository at `path` as a batch handle: with `objects` as its object
    /// database, which it takes over (and frees, even when this fails), and `batch`'s memory
    /// in it.
    static func openBatch(at path: String, objects: OpaquePointer, batch: BatchObjects) throws(GitError) -> Repository {
        defer { git_odb_free(objects) }  // the repository holds its own reference
        var repository: OpaquePointer?
        try check("git_repository_open_bare") { git_repository_open_bare(&repository, path) }
        do {
            try check("git_repository_set_odb") { git_repository_set_odb(repository, objects) }
        } catch {
            git_repository_free(repository)
            throw error
        }
        return try Repository(opened: repository, by: "git_repository_open_bare", batch: batch)
    }

    private convenience init(opened pointer: OpaquePointer?, by function: String, batch: BatchObjects? = nil) throws(GitError) {
        guard let pointer else {
            throw GitError(function: function, rawCode: -1, errorClass: 0, message: "no repository was returned")
        }
        try self.init(pointer: pointer, batch: batch)
    }

    /// A bare repository at `path` that borrows every object of `other` (through
    /// `objects/info/alternates`) and keeps what it receives apart: what a fetch brings lands
    /// here, where the borrowing repository's own checks (`git fsck`) never see it, until it is
    /// moved over. Made on first use.
    package static func openBorrowing(from other: Repository, at path: String) throws(GitError) -> Repository {
        if (try? openBare(at: path)) == nil {
            _ = try createBare(at: path, initialBranch: "main")
        }
        let alternates = path + "/objects/info/alternates"
        let line = other.gitDirectory + "objects\n"
        if (try? String(contentsOfFile: alternates, encoding: .utf8)) != line {
            do {
                try FileManager.default.createDirectory(atPath: path + "/objects/info", withIntermediateDirectories: true)
                try line.write(toFile: alternates, atomically: true, encoding: .utf8)
            } catch {
                throw GitError(function: "writing objects/info/alternates", rawCode: -1, errorClass: 0, message: "\(error)")
            }
        }
        return try openBare(at: path)
    }

    /// The repository's git directory, with a trailing slash.
    package var gitDirectory: String {
        String(cString: git_repository_path(pointer))
    }
}
