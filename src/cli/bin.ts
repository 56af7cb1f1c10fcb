#!/usr/bin/env node
/** Executable entry point: runs the CLI on the process's argv and streams. */
import { main } from './main.js';

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
