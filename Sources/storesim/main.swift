import Foundation
import StoreSimCLI
import StoreSimSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// Every signal the process handles, in one place (see ProcessSignals.start).
ProcessSignals.start()
let code = CLI.run(Array(CommandLine.arguments.dropFirst()), environment: .live())
exit(CLI.processExitCode(code))
