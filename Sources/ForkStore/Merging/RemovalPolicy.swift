/// What a merge does when one side removed something (a whole value, a record, a dictionary
/// key, an element of an identifiable array) and the other side edited it.
///
/// Either way the decision is reported as a ``MergeConflict`` that a ``ConflictResolver`` can
/// override, and the losing side stays in the history, where `restore` or a
/// fork at the old commit brings it back.
public enum RemovalPolicy: Sendable, Hashable {
    /// The later write wins, as everywhere else in a merge: a removal made after the edit
    /// removes, an edit made after the removal keeps the edited value. "Later" is the commits'
    /// hybrid logical clock. The default: it does what the person who acted last asked for,
    /// which is what a notes or settings app's user expects from "delete".
    case latestWins
    /// The edit is always kept, however late the removal: no edit is ever lost, at the price of
    /// deleted things coming back when someone edited them offline.
    case editWins
}
