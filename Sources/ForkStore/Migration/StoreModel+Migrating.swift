import Foundation

/// Where stored data came from, as a migration needs to know it: the commit that holds it and
/// the model version that wrote it.
struct DataOrigin: Sendable {
    /// The commit the data was read from.
    let commit: Commit
    /// The model version that wrote it: the commit's stamp, or the current version for a tree
    /// this build made while merging (a virtual base).
    let modelVersion: Int?

    /// Data as stamped by its commit.
    init(_ commit: Commit) {
        self.commit = commit
        self.modelVersion = commit.modelVersion
    }

    /// Data fetched before its commits are known (a check ahead of an arriving pack), read
    /// as `model`'s version wrote it, attributed to `commit` in messages.
    init(arrivingFor model: StoreModel, near commit: Commit) {
        self.commit = commit
        self.modelVersion = model.version
    }

    /// Data this build wrote while merging, attributed to `commit` in messages.
    init(writtenByThisBuild model: StoreModel, near commit: Commit) {
        self.commit = commit
        self.modelVersion = model.version
    }
}

extension StoreModel {
    /// A parsed blob brought to the current model version: unchanged when that version wrote
    /// it, otherwise run through the migration plan. With `member` (a record envelope's
    /// `record`), the blob's own `modelVersion` says which version wrote it: a commit's tree
    /// keeps records written by older versions, so the commit's stamp does not say.
    func migrated(_ document: JSONValue, origin: DataOrigin, path: String, member: String? = nil) throws(StoreError) -> JSONValue {
        guard let stamped = origin.modelVersion else { return document }  // refused by the stamp check
        if member == nil, stamped == version { return document }
        var document = document
        var dataVersion = stamped
        if member != nil, let recordVersion = try Self.recordModelVersion(in: document, origin: origin, path: path) {
            dataVersion = recordVersion
        }
        try checkReadable(dataVersion, in: origin.commit.id)
        guard dataVersion < version else { return document }
        var json = member.map { document[$0] ?? .null } ?? document
        do {
            let recordID: String? = if member != nil, case .string(let id)? = document["id"] { id } else { nil }
            try plan.migrate(&json, from: dataVersion, to: version, recordID: recordID)
        } catch {
            throw StoreError.migrationFailed(
                commit: origin.commit.id, path: path, fromVersion: dataVersion, reason: String(describing: error))
        }
        if let member {
            document[member] = json
            document["modelVersion"] = .number(String(version))
        } else {
            document = json
        }
        return document
    }

    /// A record envelope's own `modelVersion`, when it has one: a model version as a commit's
    /// `Model-Version` trailer holds one (an integer from 1 to 999,999,999). Anything else
    /// makes the record damaged; it is never read as the commit's version instead.
    private static func recordModelVersion(in envelope: JSONValue, origin: DataOrigin, path: String) throws(StoreError) -> Int? {
        guard let member = envelope["modelVersion"] else { return nil }
        var shown = "not a number"
        if case .number(let literal) = member {
            if let version = CommitStamp.decimal(literal, below: CommitStamp.versionLimit), version >= 1 { return version }
            shown = literal.count > 24 ? literal.prefix(24) + "…" : literal
        }
        throw StoreError.undecodableValue(
            commit: origin.commit.id, path: path,
            reason: "its modelVersion is \(shown), not a model version (an integer from 1 to 999999999)")
    }
}
