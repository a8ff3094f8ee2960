/// What a record blob holds: the exact id beside the record (so the file name never needs
/// decoding) and the model version that wrote it (a commit's tree keeps records written by
/// older versions, so the commit's stamp does not say how each record is shaped).
struct RecordEnvelope<Record: Resource>: Codable {
    var id: String
    var modelVersion: Int?
    var record: Record

    init(id: String, modelVersion: Int, record: Record) {
        self.id = id
        self.modelVersion = modelVersion
        self.record = record
    }
}
