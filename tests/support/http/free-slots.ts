import { StreamSlots } from '../../../src/core/ports/stream-slots';

/** Slots that are always free and always renewed: streams limited by nothing but the process. */
export class FreeSlots extends StreamSlots {
  async take(): Promise<boolean> {
    return true;
  }
  async renew(holders: readonly string[]): Promise<string[]> {
    return [...holders];
  }
  async release(): Promise<void> {}
}
