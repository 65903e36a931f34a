// `tributary group`: being written (issue 7); this file only registers the name for now.
import type { Command } from 'commander'
import type { CliDeps } from './program.js'

export function registerGroupCommand(_program: Command, _deps: CliDeps): void {}
