internal import CLibGit2

extension Repository {
    /// The object a reference points at, or nil when the reference does not exist.
    package func resolveReference(_ name: String) throws(GitError) -> ObjectID? {
        var oid = git_oid()
        guard try checkFound("git_reference_name_to_id", { git_reference_name_to_id(&oid, pointer, name) }) else {
            return nil
        }
        return ObjectID(oid)
    }

    /// Moves `name` to `target` only if it still points at `expected` (nil: only if it does
    /// not exist yet). Throws `.modified` or `.exists` when another writer got there first.
    package func updateReference(
        _ name: String, to target: ObjectID, expecting expected: ObjectID?, logMessage: String
    ) throws(GitError) {
        var newOID = target.raw
        var reference: OpaquePointer?
        if var oldOID = expected?.raw {
            try check("git_reference_create_matching") {
                git_reference_create_matching(&reference, pointer, name, &newOID, 1, &oldOID, logMessage)
            }
        } else {
            try check("git_reference_create") {
                git_reference_create(&reference, pointer, name, &newOID, 0, logMessage)
            }
        }
        git_reference_free(reference)
    }

    /// Deletes `name` if it still points at `expected`.
    package func deleteReference(_ name: String, expecting expected: ObjectID) throws(GitError) {
        var reference: OpaquePointer?
        try check("git_reference_lookup") { git_reference_lookup(&reference, pointer, name) }
        defer { git_reference_free(reference) }
        guard let current = git_reference_target(reference), ObjectID(current.pointee) == expected else {
            throw GitError(
                function: "git_reference_delete", rawCode: GIT_EMODIFIED.rawValue, errorClass: 0,
                message: "reference '\(name)' moved before it could be deleted")
        }
        try check("git_reference_delete") { git_reference_delete(reference) }
    }

    /// Every direct reference whose name starts with `prefix`, sorted by name.
    package func references(withPrefix prefix: String) throws(GitError) -> [(name: String, target: ObjectID)] {
        var iterator: OpaquePointer?
        try check("git_reference_iterator_new") { git_reference_iterator_new(&iterator, pointer) }
        defer { git_reference_iterator_free(iterator) }
        var found: [(name: String, target: ObjectID)] = []
        var reference: OpaquePointer?
        while try checkNext("git_reference_next", { git_reference_next(&reference, iterator) }) {
            defer { git_reference_free(reference) }
            let name = String(cString: git_reference_name(reference))
            if name.hasPrefix(prefix), let target = git_reference_target(reference) {
                found.append((name, ObjectID(target.pointee)))
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// Whether libgit2 accepts `name` as a reference name.
    package static func isValidReferenceName(_ name: String) -> Bool {
        var valid: Int32 = 0
        guard (try? check("git_reference_name_is_valid", { git_reference_name_is_valid(&valid, name) })) != nil else {
            return false
        }
        return valid == 1
    }
}
