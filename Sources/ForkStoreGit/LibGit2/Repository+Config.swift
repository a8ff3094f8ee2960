internal import CLibGit2

extension Repository {
    /// The boolean `name` (`receive.denyNonFastForwards`) as git reads it for this repository
    /// (its own config, then the global and system ones); nil when none sets it.
    package func configFlag(_ name: String) throws(GitError) -> Bool? {
        var config: OpaquePointer?
        try check("git_repository_config_snapshot") { git_repository_config_snapshot(&config, pointer) }
        defer { git_config_free(config) }
        var value: Int32 = 0
        guard try checkFound("git_config_get_bool", { git_config_get_bool(&value, config, name) }) else { return nil }
        return value != 0
    }
}
