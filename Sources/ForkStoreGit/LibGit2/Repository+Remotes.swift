internal import CLibGit2
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State shared with libgit2's C callbacks through their payload pointer.
final class CallbackState {
    let options: RemoteOptions
    var credentialAttempts = 0
    var rejections: [String: String] = [:]
    /// Set by the certificate callback when it refused the server's identity, or saw libgit2
    /// refuse a TLS certificate: the failure that follows is the refusal, whatever code
    /// libgit2 gives it (1.5 says `GIT_ECERTIFICATE`, 1.8 a plain -1 of class SSL).
    var refusedServer = false
    /// What the server printed on the sideband (`remote: …` lines), kept to explain failures.
    private(set) var remoteMessages = ""

    init(options: RemoteOptions) {
        self.options = options
    }
}

extension CallbackState {
    /// Keeps what the server said, up to 4 KB: a server that never stops talking costs no
    /// more memory than that.
    func remember(_ message: String) {
        guard remoteMessages.utf8.count < 4_096 else { return }
        remoteMessages += message
    }
}

extension CallbackState {
    /// Runs a transfer, adding what the server said on the sideband to any failure, since
    /// libgit2's own message ("early EOF") often hides the server's reason.
    func explainingFailures(_ body: () throws(GitError) -> Void) throws(GitError) {
        do {
            try body()
        } catch {
            let said = remoteMessages
                .split(whereSeparator: { $0 == "\n" || $0 == "\r" })
                .map { String($0).trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("Counting") && !$0.hasPrefix("Compressing") && !$0.hasPrefix("Enumerating") && !$0.hasPrefix("Total") }
            guard !said.isEmpty else { throw error }
            throw error.with(message: error.message + "; the remote said: " + said.suffix(3).joined(separator: " / "))
        }
    }
}

/// What a push did to each reference it tried to update.
package struct PushResult: Sendable {
    /// Reference name → the server's reason, for every update the server refused.
    package var rejected: [String: String]
    /// libgit2's reason when it found the update not a fast-forward before sending anything:
    /// the remote moved on.
    package var behind: String?

    package init(rejected: [String: String], behind: String? = nil) {
        self.rejected = rejected
        self.behind = behind
    }
}

extension Repository {
    /// Fetches with `refspecs` from `url` without recording the remote in the config. A
    /// failure is sorted here, where libgit2's code and what the server said are known.
    /// Every pack it receives is checked against `options.limits` as it arrives, before
    /// libgit2 reads it (``checkingIncomingPacks(within:copyingTo:_:)``), and copied to
    /// `arriving` when given, for a reader that follows the fetch.
    package func fetch(from url: String, refspecs: [String], options: RemoteOptions, copyingTo arriving: ArrivingPack? = nil) throws(TransferFailure) {
        let state = CallbackState(options: options)
        try checkingIncomingPacks(within: options.limits, copyingTo: arriving) { () throws(TransferFailure) in
            try transferring(state) { () throws(GitError) in try fetch(from: url, refspecs: refspecs, options: options, state: state) }
        }
    }

    private func fetch(from url: String, refspecs: [String], options: RemoteOptions, state: CallbackState) throws(GitError) {
        try withAnonymousRemote(url) { (remote) throws(GitError) in
            var fetchOptions = git_fetch_options()
            try check("git_fetch_options_init") { git_fetch_options_init(&fetchOptions, UInt32(GIT_FETCH_OPTIONS_VERSION)) }
            fetchOptions.update_fetchhead = 0
            // A redirect to another host is refused: the credentials are the remote's alone.
            fetchOptions.follow_redirects = GIT_REMOTE_REDIRECT_NONE
            fetchOptions.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
            Self.install(&fetchOptions.callbacks, state)
            defer { withExtendedLifetime(state) {} }
            try state.explainingFailures { () throws(GitError) in
                try SocketStream.withTimeouts(options.timeouts) { () throws(GitError) in
                    try withStringArray(refspecs) { (array) throws(GitError) in
                        try check("git_remote_fetch") { git_remote_fetch(remote, &array, &fetchOptions, "forkstore: fetch") }
                    }
                }
            }
        }
    }

    /// Pushes `refspecs` to `url`. Updates the server refuses (a non-fast-forward, a hook)
    /// come back in the result rather than as an error; a failure is sorted here, where
    /// libgit2's code and what the server said are known.
    package func push(to url: String, refspecs: [String], options: RemoteOptions) throws(TransferFailure) -> PushResult {
        let state = CallbackState(options: options)
        do {
            try push(to: url, refspecs: refspecs, options: options, state: state)
        } catch where error.code == .nonFastForward {
            // libgit2 checks fast-forwards itself before sending: the remote moved on.
            return PushResult(rejected: state.rejections, behind: error.message)
        } catch {
            throw TransferFailure(error, refusedServer: state.refusedServer)
        }
        return PushResult(rejected: state.rejections)
    }

    private func push(to url: String, refspecs: [String], options: RemoteOptions, state: CallbackState) throws(GitError) {
        try withAnonymousRemote(url) { (remote) throws(GitError) in
            var pushOptions = git_push_options()
            try check("git_push_options_init") { git_push_options_init(&pushOptions, UInt32(GIT_PUSH_OPTIONS_VERSION)) }
            pushOptions.follow_redirects = GIT_REMOTE_REDIRECT_NONE
            Self.install(&pushOptions.callbacks, state)
            defer { withExtendedLifetime(state) {} }
            try state.explainingFailures { () throws(GitError) in
                try SocketStream.withTimeouts(options.timeouts) { () throws(GitError) in
                    try withStringArray(refspecs) { (array) throws(GitError) in
                        try check("git_remote_push") { git_remote_push(remote, &array, &pushOptions) }
                    }
                }
            }
        }
    }

    func withAnonymousRemote(_ url: String, _ body: (OpaquePointer?) throws(GitError) -> Void) throws(GitError) {
        var remote: OpaquePointer?
        try check("git_remote_create_anonymous") { git_remote_create_anonymous(&remote, pointer, url) }
        defer { git_remote_free(remote) }
        try body(remote)
    }

    static func install(_ callbacks: inout git_remote_callbacks, _ state: CallbackState) {
        callbacks.payload = Unmanaged.passUnretained(state).toOpaque()
        callbacks.credentials = { out, _, usernameFromURL, allowed, payload in
            guard let out, let payload else { return GIT_PASSTHROUGH.rawValue }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            guard let credential = state.options.credential else { return GIT_PASSTHROUGH.rawValue }
            state.credentialAttempts += 1
            guard state.credentialAttempts <= state.options.maximumCredentialAttempts else {
                git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "the remote refused the credentials")
                return GIT_EAUTH.rawValue
            }
            switch credential {
            case .userPassword(let username, let password):
                guard allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 else { return GIT_PASSTHROUGH.rawValue }
                return git_credential_userpass_plaintext_new(out, username, password)
            case .sshKey(let username, let publicKey, let privateKey, let passphrase):
                if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
                    return git_credential_username_new(out, username)
                }
                guard allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 else { return GIT_PASSTHROUGH.rawValue }
                return git_credential_ssh_key_new(out, username, publicKey, privateKey, passphrase)
            case .sshAgent(let username):
                if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
                    return git_credential_username_new(out, username)
                }
                guard allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 else { return GIT_PASSTHROUGH.rawValue }
                _ = usernameFromURL
                return git_credential_ssh_key_from_agent(out, username)
            }
        }
        callbacks.certificate_check = { cert, valid, _, payload in
            guard let payload else { return GIT_PASSTHROUGH.rawValue }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            switch state.options.trust {
            case .verify:
                // libgit2 fails the connection when it found a TLS certificate invalid and we
                // pass (both 1.5 and 1.8). Not for ssh: 1.5 always says "invalid" for a host
                // key, having no known_hosts check, and takes passing as accepting it.
                if valid == 0, cert?.pointee.cert_type == GIT_CERT_X509 { state.refusedServer = true }
                return GIT_PASSTHROUGH.rawValue
            case .acceptAny:
                return 0
            case .pinnedHostKey(let expected):
                guard let cert, cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 else { return GIT_PASSTHROUGH.rawValue }
                let hostKey = UnsafeRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
                guard hostKey.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0 else { return -1 }
                let actual = withUnsafeBytes(of: hostKey.hash_sha256) { Array($0) }
                if actual == expected { return 0 }
                state.refusedServer = true
                git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), "the server's host key does not match the pinned key")
                return GIT_ECERTIFICATE.rawValue
            }
        }
        callbacks.sideband_progress = { text, length, payload in
            guard let text, let payload, length > 0 else { return 0 }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            state.remember(String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self))
            return 0
        }
        callbacks.transfer_progress = { stats, payload in
            guard let stats, let payload else { return 0 }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            state.options.progress?(TransferStatistics(
                direction: .fetch, objects: Int(stats.pointee.received_objects),
                totalObjects: Int(stats.pointee.total_objects), bytes: Int(stats.pointee.received_bytes)))
            return 0
        }
        callbacks.push_transfer_progress = { current, total, bytes, payload in
            guard let payload else { return 0 }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            state.options.progress?(TransferStatistics(
                direction: .push, objects: Int(current), totalObjects: Int(total), bytes: Int(bytes)))
            return 0
        }
        callbacks.push_update_reference = { reference, status, payload in
            guard let payload, let reference, let status else { return 0 }
            let state = Unmanaged<CallbackState>.fromOpaque(payload).takeUnretainedValue()
            state.rejections[String(cString: reference)] = String(cString: status)
            return 0
        }
    }
}

/// Lends `strings` to C as a `git_strarray` for the duration of `body`.
private func withStringArray(_ strings: [String], _ body: (inout git_strarray) throws(GitError) -> Void) throws(GitError) {
    var pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    try pointers.withUnsafeMutableBufferPointer { (buffer) throws(GitError) in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        try body(&array)
    }
}
