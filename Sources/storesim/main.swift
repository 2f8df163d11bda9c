import Foundation
import StoreSimCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A closed pipe is an error the CLI reports (exit 74), not a signal that kills it mid-save.
signal(SIGPIPE, SIG_IGN)
// A file-size limit (ulimit -f) is an error a save reports (exit 74), not a signal mid-write.
signal(SIGXFSZ, SIG_IGN)
let code = CLI.run(Array(CommandLine.arguments.dropFirst()), environment: .live())
exit(CLI.processExitCode(code))
