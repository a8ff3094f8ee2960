import ForkStore
import Foundation

struct Note: Resource, Identifiable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        // `done` became `completedAt`: a custom stage transforms the stored JSON.
        .custom(from: 1, to: 2) { json, _ in
            // When a version-1 note was done is not stored: 0 (2001-01-01) says "unknown".
            if json["done"] == .bool(true) {
                json["completedAt"] = .number("0")
            }
            json["done"] = nil
        },
    ])
    var id: String
    var title: String
    var completedAt: Date?
}
