import ArgumentParser
import Foundation

/// Due dates on the command line: `YYYY-MM-DD`, midnight UTC.
enum DueDate {
    static func parse(_ text: String) throws -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        if parts.count == 3 {
            (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        }
        guard parts.count == 3, components.isValidDate, let date = components.date else {
            throw ValidationError("'\(text)' is not a date; write it as YYYY-MM-DD.")
        }
        return date
    }
}
