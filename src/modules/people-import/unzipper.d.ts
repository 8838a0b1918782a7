// unzipper (a dependency of exceljs) ships no types: the part of its API the import uses.
declare module 'unzipper' {
  import type { Readable } from 'node:stream';

  export interface CentralDirectoryFile {
    path: string;
    type: 'File' | 'Directory';
    flags: number;
    compressionMethod: number;
    compressedSize: number;
    uncompressedSize: number;
    stream(password?: string): Readable;
  }
  export interface CentralDirectory {
    files: CentralDirectoryFile[];
  }
  export const Open: { buffer(buffer: Buffer): Promise<CentralDirectory> };
  const unzipper: { Open: typeof Open };
  export default unzipper;
}
