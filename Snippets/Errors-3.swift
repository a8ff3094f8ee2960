import ForkStore

func fork(named name: String) -> Fork? {
    do {
        return try Fork(name)
    } catch {
        switch error.code {
        case .invalidForkName: print("Not a fork name (\(error.reason ?? "")): \(error.fork ?? "")")
        default: print(error)
        }
        return nil
    }
}
print(fork(named: "phone") as Any, fork(named: "no spaces") as Any)
