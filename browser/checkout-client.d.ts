// The pages import the typed client by the name it is served under (src/embed/public/checkout-client.js,
// built by `npm run client`); tsc reads that name's types from the client's own source.
export * from '../clients/checkout-client.js';
