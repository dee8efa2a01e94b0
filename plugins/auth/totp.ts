// GET /auth/totp/code, computed here with otplib rather than by the upstream: the code is a pure
// function of the seed and the clock, so it needs no session, no upstream client and no trip to a
// sidecar process. Same algorithm as the upstream's (RFC 6238: SHA-1, 6 digits, 30 s steps), so
// the route reaches the upstream's totp_generate_code by doing what it does.
import { authenticator } from 'otplib';
import type { Plugin, PluginInput } from '../../engine/types.js';

export const totpCode: Plugin = {
  uses: ['totp_generate_code'],
  async handle({ input }: PluginInput) {
    return authenticator.generate(String(input.seed).replace(/\s/g, '').toUpperCase());
  },
};
