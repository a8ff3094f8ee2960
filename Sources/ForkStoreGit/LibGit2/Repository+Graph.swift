internal import CLibGit2

extension Repository {
    /// All best common ancestors of two commits; empty when their histories are unrelated.
    package func mergeBases(_ one: ObjectID, _ two: ObjectID) throws(GitError) -> [ObjectID] {
        var array = git_oidarray()
        var first = one.raw, second = two.raw
        guard try checkFound("git_merge_bases", { git_merge_bases(&array, pointer, &first, &second) }) else {
            return []
        }
        defer { git_oidarray_dispose(&array) }
        return (0..<array.count).map { ObjectID(array.ids[$0]) }
    }

    /// Whether `commit` has `ancestor` in its history (a commit is not its own descendant).
    package func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws(GitError) -> Bool {
        var c = commit.raw, a = ancestor.raw
        let result = try check("git_graph_descendant_of") { git_graph_descendant_of(pointer, &c, &a) }
        return result == 1
    }

    /// The root of `head`'s first-parent chain: the commit reached by following first parents
    /// until one has none. Packed commits are read through ``PackedFirstParents`` (the first
    /// two header lines only); loose ones, deltas and any header it does not take through
    /// libgit2, which also reports a damaged commit. A chain of a million packed commits
    /// costs a few seconds and no more memory than the packs' indexes.
    package func firstParentRoot(of head: ObjectID) throws(GitError) -> ObjectID {
        var packed = try packing("opening the packs") { () throws(PackError) in try PackedFirstParents(packs: packs()) }
        var current = head
        while true {
            let answer = try packing("reading packed commit headers") { () throws(PackError) -> PackedFirstParents.Answer? in
                try packed.firstParent(of: current)
            }
            let step: PackedFirstParents.Answer
            if let answer { step = answer } else { step = try firstParentThroughLibgit2(of: current) }
            switch step {
            case .root: return current
            case .parent(let parent): current = parent
            }
        }
    }

    private func firstParentThroughLibgit2(of id: ObjectID) throws(GitError) -> PackedFirstParents.Answer {
        var commit: OpaquePointer?
        var raw = id.raw
        try check("git_commit_lookup") { git_commit_lookup(&commit, pointer, &raw) }
        defer { git_commit_free(commit) }
        guard git_commit_parentcount(commit) > 0, let parent = git_commit_parent_id(commit, 0) else { return .root }
        return .parent(ObjectID(parent.pointee))
    }

    /// Commits reachable from `head` but not from `hidden`, newest first in topological
    /// order, at most `limit`. Without `hidden`, a fork's whole history; with it, what a
    /// merge of `head` into `hidden` brings in.
    package func walk(from head: ObjectID, hiding hidden: ObjectID? = nil, limit: Int? = nil) throws(GitError) -> [ObjectID] {
        try walk(from: head, hiding: hidden.map { [$0] } ?? [], limit: limit)
    }

    /// Commits reachable from `head` but from none of `hidden`, newest first in topological
    /// order, at most `limit`.
    package func walk(from head: ObjectID, hiding hidden: [ObjectID], limit: Int? = nil) throws(GitError) -> [ObjectID] {
        var walker: OpaquePointer?
        try check("git_revwalk_new") { git_revwalk_new(&walker, pointer) }
        defer { git_revwalk_free(walker) }
        try check("git_revwalk_sorting") {
            git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        }
        var start = head.raw
        try check("git_revwalk_push") { git_revwalk_push(walker, &start) }
        for id in hidden {
            var stop = id.raw
            try check("git_revwalk_hide") { git_revwalk_hide(walker, &stop) }
        }
        var ids: [ObjectID] = []
        var oid = git_oid()
        while limit.map({ ids.count < $0 }) ?? true {
            guard try checkNext("git_revwalk_next", { git_revwalk_next(&oid, walker) }) else { break }
            ids.append(ObjectID(oid))
        }
        return ids
    }
}

extension Repository {
    /// The commit whose id starts with `prefix` (at least 4 hexadecimal digits, unique).
    package func commit(withPrefix prefix: String) throws(GitError) -> ObjectID {
        guard prefix.utf8.count >= 4, prefix.utf8.count <= 40, ObjectID(hex: prefix.padding(toLength: 40)) != nil else {
            throw GitError(
                function: "git_oid_fromstrn", rawCode: GIT_EINVALIDSPEC.rawValue, errorClass: 0,
                message: "'\(prefix)' is not a commit id")
        }
        var oid = git_oid()
        try check("git_oid_fromstrn") { git_oid_fromstrn(&oid, prefix, prefix.utf8.count) }
        var object: OpaquePointer?
        try check("git_object_lookup_prefix") {
            git_object_lookup_prefix(&object, pointer, &oid, prefix.utf8.count, GIT_OBJECT_COMMIT)
        }
        defer { git_object_free(object) }
        return ObjectID(git_object_id(object).pointee)
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        self + String(repeating: "0", count: max(0, length - utf8.count))
    }
}

extension Repository {
    /// How many commits `local` has that `upstream` lacks, and the reverse.
    package func aheadBehind(_ local: ObjectID, _ upstream: ObjectID) throws(GitError) -> (ahead: Int, behind: Int) {
        var ahead = 0, behind = 0
        var l = local.raw, u = upstream.raw
        try check("git_graph_ahead_behind") { git_graph_ahead_behind(&ahead, &behind, pointer, &l, &u) }
        return (ahead, behind)
    }

    /// Deletes a reference if it exists, whatever it points at.
    package func removeReference(_ name: String) throws(GitError) {
        var reference: OpaquePointer?
        guard try checkFound("git_reference_lookup", { git_reference_lookup(&reference, pointer, name) }) else { return }
        defer { git_reference_free(reference) }
        try check("git_reference_delete") { git_reference_delete(reference) }
    }
}
