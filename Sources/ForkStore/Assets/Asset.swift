/// A large file a record or value holds by reference: a picture, an attachment, a recording.
///
/// The record's JSON holds only the reference, content id, size, media type and an optional
/// file name:
///
/// ```json
/// {"$asset": "sha256:9f86d0…", "mediaType": "image/jpeg", "name": "cat.jpg", "size": 2480311}
/// ```
///
/// The bytes live outside git's object database, in the store's asset folder, named by their
/// SHA-256 and checked against it when they arrive. A reference maps one to one to a Git LFS
/// pointer (the same oid and size), so assets travel to any Git LFS server and stock `git lfs`
/// reads what ForkStore uploads. Add one with `addAsset(contentsOf:mediaType:fileName:)`,
/// store it in a record like any other property, and read it with `localURL(of:)`.
public struct Asset: Sendable, Hashable, Codable {
    /// The SHA-256 of the bytes.
    public let id: AssetID
    /// The number of bytes.
    public let size: Int
    /// The media type, such as `image/png`; `application/octet-stream` when unknown.
    public var mediaType: String
    /// The file name to offer when the asset is saved or shown, without folders; nil for none.
    public var fileName: String?

    /// A reference to bytes with this id and size. Adding the bytes to a store
    /// (`addAsset(contentsOf:mediaType:fileName:)`) makes one for you.
    public init(id: AssetID, size: Int, mediaType: String = Asset.unknownMediaType, fileName: String? = nil) {
        self.id = id
        self.size = max(0, size)
        self.mediaType = mediaType
        self.fileName = fileName
    }

    /// The media type of bytes of unknown kind.
    public static let unknownMediaType = "application/octet-stream"

    /// The JSON member that marks an object as an asset reference.
    package static let referenceKey = "$asset"

    enum CodingKeys: String, CodingKey {
        case id = "$asset"
        case size
        case mediaType
        case fileName = "name"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(AssetID.self, forKey: .id)
        let size = try container.decode(Int.self, forKey: .size)
        guard size >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .size, in: container, debugDescription: "an asset's size is never negative")
        }
        self.size = size
        mediaType = try container.decodeIfPresent(String.self, forKey: .mediaType) ?? Self.unknownMediaType
        fileName = try container.decodeIfPresent(String.self, forKey: .fileName)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(size, forKey: .size)
        try container.encode(mediaType, forKey: .mediaType)
        try container.encodeIfPresent(fileName, forKey: .fileName)
    }
}
