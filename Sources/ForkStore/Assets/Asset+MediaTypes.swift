extension Asset {
    /// The media type of a file with this extension (case ignored, with or without the dot),
    /// from a small table of the kinds apps attach most: pictures, documents, audio, video and
    /// archives. ``unknownMediaType`` for any other.
    ///
    /// `addAsset(contentsOf:mediaType:fileName:)` uses it when it is given no media type.
    public static func mediaType(forFileExtension fileExtension: String) -> String {
        let key = (fileExtension.hasPrefix(".") ? String(fileExtension.dropFirst()) : fileExtension).lowercased()
        return mediaTypes[key] ?? unknownMediaType
    }

    private static let mediaTypes: [String: String] = [
        // Pictures
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "heic": "image/heic",
        "heif": "image/heif", "webp": "image/webp", "avif": "image/avif", "svg": "image/svg+xml", "tif": "image/tiff",
        "tiff": "image/tiff", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon",
        // Documents
        "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown", "html": "text/html", "htm": "text/html",
        "csv": "text/csv", "json": "application/json", "xml": "application/xml", "rtf": "application/rtf",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "flac": "audio/flac",
        "ogg": "audio/ogg", "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "webm": "video/webm",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
    ]
}
