import ForkStore
import ForkStoreQueries
import Foundation

struct Film: IndexedRecord {
    static let modelVersion = 1
    static let indexedFields: [IndexedField<Film>] = [
        .field("title", \.title),
        .field("year", \.year),
        .field("watched", \.watchedAt),
        .each("genre", \.genres),
    ]
    var id: String
    var title: String
    var year: Int
    var genres: [String]
    var watchedAt: Date?
}

let films = try RecordStore<Film>.inMemory()
try films.save([
    Film(id: "tt0111161", title: "The Shawshank Redemption", year: 1994, genres: ["drama"]),
    Film(id: "tt0068646", title: "The Godfather", year: 1972, genres: ["crime", "drama"]),
    Film(id: "tt0110912", title: "Pulp Fiction", year: 1994, genres: ["crime"]),
])

// Dramas, newest first, at most 20.
let dramas = try films.query(
    RecordQuery<Film>().filter(\.genres, contains: "drama").sorted(by: \.year, descending: true).limit(20))
print(dramas.map(\.title))  // ["The Shawshank Redemption", "The Godfather"]

// Counting reads the index only.
let unwatched = try films.count(matching: RecordQuery<Film>().filter(\.watchedAt, equals: nil))
print(unwatched)  // 3

// The same query on another fork.
let phone = try Fork("phone")
try films.createFork(phone, from: .main)
print(try films.query(RecordQuery<Film>().filter(\.year, lessThan: 1990), in: phone).count)  // 1
