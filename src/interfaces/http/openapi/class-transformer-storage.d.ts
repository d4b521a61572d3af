// class-transformer keeps its @Type metadata in this module but publishes its types under types/.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
