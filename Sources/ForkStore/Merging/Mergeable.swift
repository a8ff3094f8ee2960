/// A value that merges itself when two forks changed it concurrently.
///
/// ForkStore calls ``merged(with:ancestor:)`` on the *dominant* side: the side with the later
/// write (the higher hybrid logical clock, see ``Commit/clock``). Where your merge must pick
/// one side, pick `self`. Because dominance depends only on the commits, every replica that
/// merges the same two commits gets the same result, whichever fork or device runs the merge.
/// It is called whenever both sides changed the value since the ancestor, even when both ended
/// equal, so a value that counts events sees both sides' events.
///
/// Values that are not `Mergeable` merge as a whole by last-writer-wins: the dominant side wins.
///
/// Merges run while the store is locked: work on the values alone and never call the store
/// from a merge (its lock is not reentrant).
///
/// Laws a merge should keep (the `ForkStoreMergeTesting` kit checks them):
/// - `x.merged(with: a, ancestor: a) == x` and `a.merged(with: x, ancestor: a) == x`;
/// - the result depends on the three values only;
/// - for values that are not counts of events, `x.merged(with: x, ancestor: a) == x`.
public protocol Mergeable {
    /// Merges two versions that both descend from `ancestor`. `self` is the dominant side.
    func merged(with subordinate: Self, ancestor: Self) throws -> Self

    /// Merges two versions with no common history (two devices that started offline).
    /// `self` is the dominant side. The default keeps `self`.
    func salvaged(with subordinate: Self) throws -> Self
}

extension Mergeable {
    public func salvaged(with subordinate: Self) throws -> Self { self }
}
