import ForkStore

struct Film: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
    var year: Int
}

let films = try RecordStore<Film>.create(at: "/tmp/films.store")
try films.save(Film(id: "tt0111161", title: "The Shawshank Redemption", year: 1994))
try films.update("tt0111161") { $0.year = 1995 }          // read-modify-write, under the lock
try films.transaction { changes in                          // one commit
    changes.save(Film(id: "tt0068646", title: "The Godfather", year: 1972))
    changes.delete("tt0111161")
}
let seventies = try films.query(where: { $0.year < 1980 }, sortedBy: { $0.year < $1.year })
let total = try films.count()
print(seventies.map(\.title), total)                        // ["The Godfather"] 1
