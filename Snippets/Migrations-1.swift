import ForkStore
import Foundation

struct Note: Resource, Identifiable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        // `done` became `completedAt`: a custom stage transforms the stored JSON.
        .custom(from: 1, to: 2) { json, context in
            if json["done"] == .bool(true) {
                json["completedAt"] = .number(String(context.date.timeIntervalSinceReferenceDate))
            }
            json["done"] = nil
        },
    ])
    var id: String
    var title: String
    var completedAt: Date?
}
