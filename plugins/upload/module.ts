// Uploads from a multipart file or a URL (the transfer adapter's limits are the upload settings).
import type { FeatureModule } from '../../engine/types.js';
import { uploadPlugins } from './index.js';

export const uploadModule: FeatureModule = { name: 'upload', plugins: uploadPlugins };
