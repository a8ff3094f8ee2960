import Foundation

/// Where a remote keeps assets: a Git LFS server, or a path remote's own `lfs/objects`.
extension Remote {
    /// The Git LFS endpoint the remote's assets go to and come from, as git's `lfs.url` names
    /// it: the batch API is at `<assetsURL>/objects/batch`.
    ///
    /// Unless the app sets one, it is derived from ``url`` as git-lfs derives it: for an
    /// http(s) remote, `<url>/info/lfs` when the URL ends in `.git`, else `<url>.git/info/lfs`
    /// (`https://git.example.com/notes.git` → `https://git.example.com/notes.git/info/lfs`).
    /// A path remote keeps assets in its own repository (`<git directory>/lfs/objects`, where
    /// git-lfs keeps them), and has none unless set. A `git://` or `ssh://` remote has none
    /// either: set one (its server's https endpoint) before syncing records that hold assets,
    /// else a sync that must move an asset fails with ``ExchangeError/invalidRemote(url:reason:)``.
    ///
    /// It may be an http(s) URL or a local path (`file://` or absolute: a repository whose
    /// `lfs/objects` holds the assets). Credentials and trust are the remote's own; like
    /// ``url``, it must not contain a password (a sync that would use one fails as
    /// ``ExchangeError/invalidRemote(url:reason:)``).
    public var assetsURL: String? {
        get {
            if let configuredAssetsURL { return configuredAssetsURL }
            guard transport == .http || transport == .https else { return nil }
            // Without a user name: the endpoint takes the remote's credentials, and an
            // endpoint naming a user is refused.
            var base = url
            if var components = URLComponents(string: url), components.user != nil {
                components.user = nil
                components.password = nil
                base = components.string ?? url
            }
            if base.hasSuffix("/") { base.removeLast() }
            return base.lowercased().hasSuffix(".git") ? base + "/info/lfs" : base + ".git/info/lfs"
        }
        set {
            configuredAssetsURL = newValue
        }
    }

    /// Where this remote's assets are, checked: a repository folder, or a Git LFS endpoint.
    ///
    /// - Throws: ``ExchangeError/invalidRemote(url:reason:)`` when there is none (a `git://` or
    ///   ssh remote without ``assetsURL``) or the one set cannot be used.
    func assetEndpoint() throws(ExchangeError) -> AssetEndpoint {
        if let configured = configuredAssetsURL {
            let checked = try Self.checked(configured)
            let lower = checked.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return .lfs(url: checked) }
            if lower.hasPrefix("file://"), let path = URL(string: checked)?.path, !path.isEmpty { return .folder(repository: path) }
            if checked.hasPrefix("/") { return .folder(repository: checked) }
            throw ExchangeError.invalidRemote(
                url: Remote.redacted(checked), reason: "an assets URL is http(s), file:// or an absolute path (Remote.assetsURL)")
        }
        switch transport {
        case .local:
            guard let localPath else { throw ExchangeError.invalidRemote(url: url, reason: "its folder cannot be read from the URL") }
            return .folder(repository: localPath)
        case .http, .https:
            guard let derived = assetsURL else { throw ExchangeError.invalidRemote(url: url, reason: "it has no Git LFS endpoint") }
            return .lfs(url: derived)
        case .git, .ssh:
            throw ExchangeError.invalidRemote(
                url: url,
                reason: "records hold assets, and a git:// or ssh remote has no Git LFS endpoint of its own: set Remote.assetsURL to its server's https endpoint")
        }
    }
}

/// Where a remote's assets are (``Remote/assetEndpoint()``).
enum AssetEndpoint: Equatable {
    /// A repository on this machine: the assets are in its git directory's `lfs/objects`.
    case folder(repository: String)
    /// A Git LFS server: its endpoint, where `objects/batch` is.
    case lfs(url: String)
}
