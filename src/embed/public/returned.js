// The bank's window ends here (CHECKOUT_RETURN_URL of a site that sells through the drop-in checkout):
// the checkout that opened it reads the outcome from the service, so the window closes itself.
window.close();
