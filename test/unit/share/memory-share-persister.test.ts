// The in-memory persister the share-partition tests use keeps the ShareStatePersister contract
// (test/unit/share-state-contract.ts), so what those tests see is what the share coordinator does.
import { MemorySharePersister } from '../../helpers/memory-share-persister.js'
import { shareStatePersisterContract } from '../share-state-contract.js'

shareStatePersisterContract('MemorySharePersister', async () => ({
  persister: new MemorySharePersister(),
  topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
  close: async () => {},
}))
