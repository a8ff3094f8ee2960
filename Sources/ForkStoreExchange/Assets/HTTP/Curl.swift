internal import CCurl
import Foundation

// Every libcurl call goes through this file: a failure always names its function and carries
// curl's own words (its error buffer when it wrote one, else curl_easy_strerror), read in the
// same synchronous call. The rest of Assets/HTTP/ never calls libcurl but through `CurlHandle`
// and `CurlURL`.

/// The process-wide `curl_global_init`, done once before the first handle: it is not
/// thread-safe, and a Swift global's initializer runs exactly once, under a lock.
private let curlGlobalInit: CURLcode = curl_global_init(forkstore_curl_global_default())

/// One libcurl easy handle, used by one thread at a time (an ``HTTPSession`` owns it). Its
/// connection cache survives `reset()`, so one session's requests to one server share a
/// connection.
final class CurlHandle {
    private let handle: UnsafeMutableRawPointer
    /// Where curl writes what went wrong in words (CURL_ERROR_SIZE bytes), set again after
    /// every reset.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Lists handed to curl for the request in progress, freed on the next reset.
    private var lists: [UnsafeMutablePointer<curl_slist>] = []

    init() throws(HTTPFailure) {
        guard curlGlobalInit == CURLE_OK else {
            throw HTTPFailure.transport(reason: "curl_global_init failed: \(Self.describe(curlGlobalInit))")
        }
        guard let handle = curl_easy_init() else {
            throw HTTPFailure.transport(reason: "curl_easy_init failed (out of memory?)")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        freeLists()
        errorBuffer.deallocate()
    }

    /// Back to curl's defaults for a new request (connections and the DNS cache are kept),
    /// with the error buffer set.
    func reset() throws(HTTPFailure) {
        curl_easy_reset(handle)
        freeLists()
        errorBuffer[0] = 0
        try check("curl_easy_setopt(ERRORBUFFER)", forkstore_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
    }

    func set(_ option: CURLoption, _ value: Int, _ name: String) throws(HTTPFailure) {
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_long(handle, option, value))
    }

    func set(_ option: CURLoption, offset value: Int, _ name: String) throws(HTTPFailure) {
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_offset(handle, option, curl_off_t(value)))
    }

    /// Sets a string option; curl copies the string.
    func set(_ option: CURLoption, _ value: String, _ name: String) throws(HTTPFailure) {
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_string(handle, option, value))
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: String) throws(HTTPFailure) {
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_pointer(handle, option, value))
    }

    /// Sets a list option (request headers); the list lives until the next reset.
    func set(_ option: CURLoption, list lines: [String], _ name: String) throws(HTTPFailure) {
        guard !lines.isEmpty else { return }
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw HTTPFailure.transport(reason: "curl_slist_append failed (out of memory?)")
            }
            list = longer
        }
        guard let list else { return }
        lists.append(list)
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_list(handle, option, list))
    }

    func set(_ option: CURLoption, callback: curl_write_callback, _ name: String) throws(HTTPFailure) {
        try check("curl_easy_setopt(\(name))", forkstore_curl_setopt_data_callback(handle, option, callback))
    }

    func set(readCallback: curl_read_callback) throws(HTTPFailure) {
        try check("curl_easy_setopt(READFUNCTION)", forkstore_curl_setopt_read_callback(handle, readCallback))
    }

    func set(progressCallback: curl_xferinfo_callback) throws(HTTPFailure) {
        try check("curl_easy_setopt(XFERINFOFUNCTION)", forkstore_curl_setopt_xferinfo_callback(handle, progressCallback))
    }

    /// Runs the request set up; returns curl's code and its words for a failure, which the
    /// caller sorts (it knows why its own callbacks stopped the transfer).
    func perform() -> (code: CURLcode, reason: String) {
        errorBuffer[0] = 0
        let code = curl_easy_perform(handle)
        return (code, code == CURLE_OK ? "" : reason(for: code))
    }

    /// The status of the last response received.
    func responseCode() -> Int {
        var status = 0
        guard forkstore_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK else { return 0 }
        return status
    }

    /// Throws a failure naming `function` unless curl returned CURLE_OK.
    private func check(_ function: String, _ code: CURLcode) throws(HTTPFailure) {
        guard code == CURLE_OK else { throw HTTPFailure.transport(reason: "\(function) failed: \(reason(for: code))") }
    }

    /// curl's words for a failure: what it wrote in the error buffer, else its code's text.
    private func reason(for code: CURLcode) -> String {
        let written = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return written.isEmpty ? Self.describe(code) : written
    }

    static func describe(_ code: CURLcode) -> String {
        "\(String(cString: curl_easy_strerror(code))) (curl \(code.rawValue))"
    }

    private func freeLists() {
        lists.forEach { curl_slist_free_all($0) }
        lists.removeAll()
    }
}

/// A URL as libcurl reads it (`curl_url`): what a ``HTTPURL`` is made from, so the origin
/// the transport checks is the one curl connects to.
enum CurlURL {
    /// The parts of `text` curl reads, resolved against `base` when given (a redirect's
    /// `Location`); nil when curl refuses it.
    static func parse(_ text: String, relativeTo base: String? = nil) -> (url: String, scheme: String, host: String, port: String, path: String, user: Bool, query: Bool, fragment: Bool)? {
        guard curlGlobalInit == CURLE_OK, let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        if let base, curl_url_set(handle, CURLUPART_URL, base, 0) != CURLUE_OK { return nil }
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let url = part(CURLUPART_URL), let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST),
            let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT))
        else { return nil }
        return (
            url, scheme, host, port, part(CURLUPART_PATH) ?? "/", part(CURLUPART_USER) != nil || part(CURLUPART_PASSWORD) != nil,
            part(CURLUPART_QUERY) != nil, part(CURLUPART_FRAGMENT) != nil
        )
    }
}
