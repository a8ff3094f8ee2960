import ArgumentParser
import ForkStore

struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share the notes with people, by their ssh keys: who may read and who may write.",
        discussion: """
            Once a store has participants, sync takes in only commits signed by a participant who
            may write (FORKNOTES_SIGNING_KEY names your Ed25519 private key file, which signs your
            commits), and changes to the participants only when an owner signed them.
            """,
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a participant (the first one added makes your own key the owner).",
            discussion: """
                Example: FORKNOTES_SIGNING_KEY=~/.ssh/id_ed25519 forknotes share add --store notes --write --name bob bob.pub
                """)

        @OptionGroup var location: StoreLocation
        @Argument(help: ShareCommand.keyHelp) var key: String
        @Flag(help: "What the participant may do.") var access: Participant.Access = .read
        @Option(help: "A name people can read.") var name: String?

        func run() throws {
            let store = try location.open()
            let owner = try ShareCommand.requireOwner(of: store)
            let added = try ParticipantKeyArgument.key(key)
            var participants = try store.participants()
            if participants.isEmpty { participants = [Participant(key: owner, access: .owner, name: "owner")] }
            participants.removeAll { $0.key == added }
            participants.append(Participant(key: added, access: access, name: name))
            try store.setParticipants(participants, message: "Share with \(name ?? added.description) (\(access.rawValue))")
            print("Shared with \(name ?? added.description) (\(access.rawValue)).".escapedForTerminal)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the participants.", discussion: "Example: forknotes share list --store notes")

        @OptionGroup var location: StoreLocation

        func run() throws {
            let participants = try location.open().participants()
            if participants.isEmpty { print("Not shared: sync takes in commits from anyone who can push to the remote.") }
            for participant in participants {
                print("\(participant.access.rawValue)  \((participant.name ?? "-").escapedForTerminal)  \(participant.key)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a participant; their later commits are refused.",
            discussion: "Example: FORKNOTES_SIGNING_KEY=~/.ssh/id_ed25519 forknotes share remove --store notes bob.pub")

        @OptionGroup var location: StoreLocation
        @Argument(help: ShareCommand.keyHelp) var key: String

        func run() throws {
            let store = try location.open()
            _ = try ShareCommand.requireOwner(of: store)
            let removed = try ParticipantKeyArgument.key(key)
            var participants = try store.participants()
            guard participants.contains(where: { $0.key == removed }) else {
                throw ValidationError("That key is not a participant.")
            }
            participants.removeAll { $0.key == removed }
            guard participants.contains(where: { $0.access == .owner }) || participants.isEmpty else {
                throw ValidationError("That would leave no owner; add another owner first.")
            }
            try store.setParticipants(participants, message: "Stop sharing with \(removed)")
            print("Removed \(removed).")
        }
    }

    static let keyHelp = ArgumentHelp(
        "The participant's Ed25519 public key: its line (ssh-ed25519 AAAA… [comment]) or the path of its .pub file.",
        valueName: "key")

    /// The signing key's public half, which must belong to an owner (or the store must not be
    /// shared yet): peers refuse participant changes an owner did not sign.
    static func requireOwner(of store: RecordStore<Note>) throws -> ParticipantKey {
        guard let key = try StoreLocation.signingKey()?.publicKey else {
            throw ValidationError("Set FORKNOTES_SIGNING_KEY to your Ed25519 private key file: participant changes must be signed.")
        }
        let participants = try store.participants()
        guard participants.isEmpty || participants.contains(where: { $0.key == key && $0.access == .owner }) else {
            throw ValidationError("Your key is not an owner of these notes; only an owner changes who they are shared with.")
        }
        return key
    }
}

extension Participant.Access: EnumerableFlag {}
