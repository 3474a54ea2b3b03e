// Offers the browser's location to the search form. The page works without it: coordinates can be
// typed. Nothing is sent anywhere but in the form, and only when the person asks.
(function () {
  var button = document.getElementById("locate");
  var field = document.getElementById("near");
  if (!button || !field || !navigator.geolocation) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    button.disabled = true;
    navigator.geolocation.getCurrentPosition(function (position) {
      field.value = position.coords.latitude.toFixed(5) + "," + position.coords.longitude.toFixed(5);
      field.form.submit();
    }, function () {
      button.disabled = false;
      button.textContent = "Location not available: type it";
    }, { timeout: 10000 });
  });
})();
