@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// Canonical numbers: the input is a number literal. Its canonical literal is its own
    /// canonical literal, names the same double, and every other spelling of the same value
    /// (`0.<digits>e<n>`, `<digits>e<exponent>`, trailing zeros) canonicalizes to it.
    static let canonicalNumbers = FuzzTarget(name: "canonical-numbers") { bytes in
        guard case .number(let canonical)? = try? CanonicalJSON.parse(bytes) else { return }
        let literal = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        check(CanonicalJSON.canonicalNumber(canonical) == canonical, "canonical \(canonical) of \(literal) is not a fixed point")
        if let written = Double(literal), written.isFinite {
            check(Double(canonical) == written, "canonical \(canonical) names another double than \(literal)")
        }
        // The same value in other spellings.
        var negative = false
        var digits = Substring(canonical)
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        var exponent = 0
        if let e = digits.firstIndex(of: "e") {
            guard let written = Int(digits[digits.index(after: e)...].replacingOccurrences(of: "+", with: "")) else {
                return check(false, "canonical \(canonical) has a bad exponent")
            }
            exponent = written
            digits = digits[..<e]
        }
        if let point = digits.firstIndex(of: ".") {
            exponent -= digits.distance(from: point, to: digits.endIndex) - 1
            digits = digits[..<point] + digits[digits.index(after: point)...]
        }
        // canonical = digits × 10^exponent, digits with no leading zero unless the value is 0.
        let significant = String(digits.drop { $0 == "0" })
        guard !significant.isEmpty else { return check(canonical == "0", "canonical \(canonical) is a zero") }
        let sign = negative ? "-" : ""
        let spellings = [
            "\(sign)\(significant)e\(exponent)",
            "\(sign)\(significant)0e\(exponent - 1)",
            "\(sign)0.\(significant)e\(exponent + significant.count)",
            "\(sign)0.\(significant)000E\(exponent + significant.count >= 0 ? "+" : "")\(exponent + significant.count)",
        ]
        for spelling in spellings {
            let again = CanonicalJSON.canonicalNumber(spelling)
            check(again == canonical, "\(spelling) gives \(again ?? "nil"), not \(canonical) as \(literal) does")
        }
    }
}
