import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 15: shell completions generated from the command table.
@Suite struct CompletionsTests {
  /// Runs bash's completion function for the words typed; `storesim` itself is a stub that
  /// answers the id lists, so the script is tested apart from a session.
  func complete(_ script: String, _ words: [String]) throws -> [String] {
    let bash = ["/bin/bash", "/usr/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let bash else { return [] }
    let folder = NSTemporaryDirectory() + "storesim-completion-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try script.write(toFile: folder + "/c.bash", atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: bash)
    process.arguments =
      [
        "-c",
        """
        storesim() { case "$3" in products) printf 'p.one\\np.two\\n';; transactions) printf '2000000000000001\\n';; esac; }
        source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _storesim; printf '%s\\n' "${COMPREPLY[@]}"
        """, folder + "/c.bash",
      ] + words
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  @Test func bashCompletesCommandsOptionsSettingsAndSessionIds() throws {
    let cli = try CLIHarness()
    let r = cli.run("completions bash")
    #expect(r.code == 0)
    let script = r.stdout
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let commands = try complete(script, ["storesim", ""])
    for spec in CommandTable.standard.commands {
      #expect(commands.contains(spec.name), "\(spec.name) is not completed")
    }
    #expect(try complete(script, ["storesim", "buy", "x", "--q"]) == ["--quantity"])
    #expect(try complete(script, ["storesim", "buy", "p.t"]) == ["p.two"])
    #expect(try complete(script, ["storesim", "settings", "grace"]) == ["grace-period"])
    #expect(try complete(script, ["storesim", "finish", "2"]) == ["2000000000000001"])
    #expect(try complete(script, ["storesim", "help", "ech"]) == ["echo"])
  }

  @Test func zshAndFishScriptsNameEveryCommandAndOption() throws {
    let cli = try CLIHarness()
    let fish = cli.run("completions fish").stdout
    for spec in CommandTable.standard.commands {
      #expect(fish.contains("-a \(spec.name) -d"))
      for option in spec.options {
        #expect(fish.contains("__fish_seen_subcommand_from \(spec.name)' -l \(option.name)"))
      }
    }
    #expect(cli.run("completions zsh").stdout.hasPrefix("#compdef storesim"))
    let bad = cli.run("completions tcsh")
    #expect(bad.code == 64)
    #expect(bad.stderr.contains("unknown shell 'tcsh'"))
  }

  @Test func listsComeFromTheCurrentSession() throws {
    let cli = try CLIHarness()
    cli.run("init AppleSample.storekit --start 2026-01-01T00:00:00Z")
    cli.run("buy nonconsumable.car")
    #expect(cli.run("completions --list transactions").stdout == "2000000000000001\n")
    #expect(cli.run("completions --list products").stdout.contains("subscription.pro\n"))
  }
}
