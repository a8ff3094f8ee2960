import ForkStore

func forks(named names: [String]) throws -> [Fork] {
    var forks: [Fork] = []
    for name in names {
        do {
            forks.append(try Fork(name))
        } catch StoreError.invalidForkName {
            continue
        } catch {
            throw error  // without it, Swift 6.3 crashes compiling this function
        }
    }
    return forks
}
print(try forks(named: ["phone", "no spaces"]))
